import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PostgresState } from '../../src/state/postgres/store.js';
import { listSpooled, spoolDirOf } from '../../src/util/spool.js';
import { createFixture, onPostgres, runCliOn, type Fixture } from './fixture.js';

// Workers on several machines share a PostgreSQL state, each with its own local spool. A
// translation waiting in one machine's spool cannot be read on another: that worker leaves it to
// the machine's worker while it is alive, and only once that worker is gone is the download given
// up as lost (uploaded again, reported: docs/postgres.md, "The spool on several machines").

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!onPostgres)('a translation in the spool of another machine', () => {
  it('is left to its live worker, and uploaded again (reported as a lost download) once that worker is gone', async () => {
    fx = await createFixture({
      files: { 'guide.txt': 'The guide.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    const f = fx;
    // The output's name is taken by a folder: received, kept in the spool, not written.
    f.write('out/de/guide.txt/keep.me', 'in the way\n');
    const first = await f.sync();
    expect(first.failed.map((x) => x.error)).toEqual([expect.stringMatching(/kept in the spool/)]);
    fs.rmSync(path.join(f.dir, 'out/de/guide.txt'), { recursive: true });
    const spoolDir = spoolDirOf((await f.load()).statePath);
    expect(listSpooled(spoolDir)).toHaveLength(1);

    // That spool is on machine A, alive: this machine cannot read it.
    const machineA = await f.open();
    const state = machineA.state as PostgresState;
    await state.pool.query(`UPDATE jobs SET spool_holder = $1 WHERE spool_path IS NOT NULL`, [
      state.workerId,
    ]);
    fs.renameSync(spoolDir, path.join(f.dir, 'spool-of-machine-a'));

    const mark = f.mark();
    const left = await f.sync();
    expect(left.failed).toEqual([]);
    expect(left.lostDownloads).toEqual([]);
    expect(left.elsewhere).toBe(1);
    expect(f.documentRequests(mark)).toEqual([]);
    expect(f.exists('out/de/guide.txt')).toBe(false);
    // status says where it waits.
    const waiting = await runCliOn(f, 'status', '--no-scan', '--json');
    const spooled = (JSON.parse(waiting.stdout) as { spooled: { documents: unknown[] } }).spooled;
    expect(spooled.documents).toEqual([
      { document_id: expect.any(String), output: 'out/de/guide.txt', holder: state.workerId },
    ]);

    // Machine A is gone for good (its worker stopped, its spool out of reach): a lost download,
    // uploaded once more and reported so.
    await machineA.close();
    const again = await f.sync();
    expect(again.failed).toEqual([]);
    expect(again.lostDownloads.map((l) => l.file)).toEqual(['guide.txt']);
    expect(f.uploads(mark).map((u) => u.filename)).toEqual(['guide.txt']);
    expect(f.read('out/de/guide.txt')).toMatch(/^\[de\] \S/);
    const status = await runCliOn(f, 'status', '--no-scan', '--json');
    const data = JSON.parse(status.stdout) as {
      possibly_billed_twice: Array<{ file: string; lost_downloads: number }>;
    };
    expect(data.possibly_billed_twice.map((r) => [r.file, r.lost_downloads])).toEqual([['guide.txt', 1]]);
  }, 120_000);
});
