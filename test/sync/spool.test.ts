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
