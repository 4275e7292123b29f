import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listSpooled, spoolDirOf } from '../../src/util/spool.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, type Fixture } from './fixture.js';

// A download is handed over once. A translation that arrives but cannot be put in place is kept in
// the spool beside the state and delivered by the next run: not lost, not paid for again.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('the spool', () => {
  it('keeps a download that cannot be put in place and delivers it on the next run without the service', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Alpha.\n', 'b.txt': 'Beta.\n' } });
    const f = fx;
    // The output's name is taken by a folder with a file in it: the download arrives, the rename fails.
    f.write('out/de/a.txt/keep.me', 'in the way\n');
    const first = await f.sync();
    expect(first.failed.map((x) => [x.file, x.target, x.kind, x.willRetry])).toEqual([
      ['a.txt', 'de', 'output', true],
    ]);
    expect(first.failed[0]?.error).toMatch(/kept in the spool/);
    const spoolDir = spoolDirOf((await f.load()).statePath);
    expect(listSpooled(spoolDir)).toHaveLength(1);
    expect(f.read('out/fr/a.txt')).not.toBe('');
    // status names what waits in the spool, in text and JSON.
    const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY };
    const status = await runCli(['status', '-c', f.manifestPath, '--no-scan'], { env, timeoutMs: 120_000 });
    expect(status.stdout).toMatch(/Spooled \(1; downloaded and paid, not yet written/);
    expect(status.stdout).toContain('out/de/a.txt: document ');
    const json = await runCli(['status', '-c', f.manifestPath, '--no-scan', '--json'], {
      env,
      timeoutMs: 120_000,
    });
    const spooled = (JSON.parse(json.stdout) as { spooled: { documents: Array<{ output: string }> } })
      .spooled;
    expect(spooled.documents.map((d) => d.output)).toEqual(['out/de/a.txt']);

    // The folder moved away: delivered from the spool, with no upload and no download.
    fs.rmSync(path.join(f.dir, 'out/de/a.txt'), { recursive: true });
    const mark = f.mark();
    const second = await f.sync();
    expect(second.failed).toEqual([]);
    expect(f.uploads(mark)).toEqual([]);
    expect(f.documentRequests(mark).filter((r) => r.path.endsWith('/result'))).toEqual([]);
    expect(f.read('out/de/a.txt')).toMatch(/^\[de\] \S/);
    expect(listSpooled(spoolDir)).toEqual([]);
  }, 120_000);
});

describe('a translation in the spool, found by the next run', () => {
  /** A first translation of guide.txt, then a new one received into the spool and not written. */
  async function spooledSecondEdition(f: Fixture): Promise<string> {
    expect((await f.sync()).failed).toEqual([]);
    f.write('src/guide.txt', 'The guide, second edition.\n');
    // The output's name is taken by a folder: with --overwrite-edits the new translation is to go
    // there, the rename fails, and it waits in the spool.
    fs.rmSync(path.join(f.dir, 'out/de/guide.txt'));
    f.write('out/de/guide.txt/keep.me', 'in the way\n');
    const kept = await f.sync({ overwriteEdits: true });
    expect(kept.failed.map((x) => x.error)).toEqual([expect.stringMatching(/kept in the spool/)]);
    fs.rmSync(path.join(f.dir, 'out/de/guide.txt'), { recursive: true });
    const [id] = listSpooled(spoolDirOf((await f.load()).statePath));
    return path.join(spoolDirOf((await f.load()).statePath), encodeURIComponent(id ?? ''));
  }

  const oneTarget = {
    mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
  };

  it('is taken as done when a worker stopped after writing it to the output, before recording it', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'The guide.\n' }, manifest: oneTarget });
    const f = fx;
    const spooled = await spooledSecondEdition(f);
    // What a worker killed between the output's rename and its record leaves behind.
    fs.copyFileSync(spooled, path.join(f.dir, 'out/de/guide.txt'));
    const mark = f.mark();
    const next = await f.sync();
    expect(next.failed).toEqual([]);
    expect(f.documentRequests(mark)).toEqual([]);
    // Not taken for a person's edit of the output: no new translation beside it, nothing to resolve.
    expect(f.exists('out/de/guide.locsync-new.txt')).toBe(false);
    expect(listSpooled(path.dirname(spooled))).toEqual([]);
    expect((await f.sync()).failed).toEqual([]);
    expect(f.exists('out/de/guide.locsync-new.txt')).toBe(false);
  }, 120_000);

  it('that is no longer what was received is not delivered: a lost download, uploaded again and reported', async () => {
    fx = await createFixture({ files: { 'guide.txt': 'The guide.\n' }, manifest: oneTarget });
    const f = fx;
    const spooled = await spooledSecondEdition(f);
    fs.writeFileSync(spooled, 'not the translation\n');
    const mark = f.mark();
    const next = await f.sync();
    expect(next.failed).toEqual([]);
    expect(next.lostDownloads.map((l) => l.file)).toEqual(['guide.txt']);
    expect(f.uploads(mark).map((u) => u.filename)).toEqual(['guide.txt']);
    expect(f.read('out/de/guide.txt')).toMatch(/^\[de\] \S/);
    expect(f.read('out/de/guide.txt')).not.toContain('not the translation');
    expect(listSpooled(path.dirname(spooled))).toEqual([]);
  }, 120_000);
});
