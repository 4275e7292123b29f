import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStatusSource } from '../../src/report/status-source.js';
import { StatusPageCollector } from '../../src/web/status-data.js';
import { renderStatusPage } from '../../src/web/status-page.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, type Fixture } from '../sync/fixture.js';

// The status page of `watch` and the HTML report list the outputs people edited and the conflicts
// among them, with what to do: the same list `locsync status` prints (docs/review.md).

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** de edited by a person and then its source changed (a conflict); fr only edited (kept). */
async function editedProject(): Promise<Fixture> {
  const f = await createFixture({ files: { 'guide.txt': 'Hello world.\n', 'notes.txt': 'A note.\n' } });
  await f.sync();
  f.write('out/de/guide.txt', 'Von einer Person korrigiert.\n');
  f.write('out/fr/notes.txt', 'Corrigé par une personne.\n');
  f.write('src/guide.txt', 'Hello world, again.\n');
  expect((await f.sync()).failed).toEqual([]);
  return f;
}

describe('edited outputs on the web pages', () => {
  it('the status page lists them: the conflict with the file beside it and how to resolve it, the kept edit', async () => {
    fx = await editedProject();
    const loaded = await fx.load();
    const state = fx.openState();
    try {
      const collector = new StatusPageCollector({
        state,
        status: sqliteStatusSource(state),
        manifest: () => loaded,
      });
      const html = renderStatusPage(await collector.collect());
      await collector.settled();
      expect(html).toContain('Edited by people (2, <span class="bad">1 in conflict</span>)');
      const conflict = /<tr class="conflict">(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
      expect(conflict).toContain('<bdi>out/de/guide.txt</bdi>');
      expect(conflict).toContain('<bdi>out/de/guide.locsync-new.txt</bdi>');
      expect(conflict).toContain('`locsync outputs keep out/de/guide.txt`');
      const kept = /<tr class="kept">(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
      expect(kept).toContain('<bdi>out/fr/notes.txt</bdi>');
    } finally {
      state.close();
    }
  });

  it('report --format html lists them too; a conflict resolved is listed as a kept edit', async () => {
    fx = await editedProject();
    const file = path.join(fx.dir, 'report.html');
    const r = await runCli(['report', '--format', 'html', '-o', file, '-c', fx.manifestPath], {
      env: { LOCSYNC_TEST_SYNC_KEY: API_KEY },
      cwd: fx.dir,
    });
    expect(r.code).toBe(0);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toContain('<table id="edited">');
    expect(html).toMatch(
      /<tr class="conflict">.*out\/de\/guide\.locsync-new\.txt.*locsync outputs take-new out\/de\/guide\.txt/s,
    );

    await runCli(['outputs', 'keep', 'out/de/guide.txt', '-c', fx.manifestPath], { cwd: fx.dir });
    fs.rmSync(path.join(fx.dir, 'out/fr/notes.txt'));
    await fx.sync();
    await runCli(['report', '--format', 'html', '-o', file, '-c', fx.manifestPath], { cwd: fx.dir });
    const after = fs.readFileSync(file, 'utf8');
    // The kept edit is listed, no longer in conflict; the deleted output was translated again.
    expect(after).toContain('Edited by people (1)');
    expect(after).not.toContain('<tr class="conflict">');
  });
});
