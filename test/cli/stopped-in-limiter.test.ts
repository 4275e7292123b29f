import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import {
  accepted,
  GUARD_MS,
  interrupted,
  nextSyncUploadsEachOnce,
  refusedForNow,
  setRate,
  syncChild,
} from './limiter-fixture.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// Ctrl-C stops uploading: an upload still waiting in the client's rate limiter when it comes has sent
// nothing and must not leave after it (possibly many seconds later, billed): it ends unsent, left for
// the next run, which uploads it once. Over real HTTP (the local service on port 0), a real state
// file and the CLI as a child process that gets SIGINT.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const FILES = ['a.txt', 'b.txt', 'c.txt'];

/** The attempts each job has counted, fewest first. */
function attempts(project: OpsProject): number[] {
  const db = new Database(path.join(project.dir, '.locsync/state.db'), { readonly: true });
  try {
    return db
      .prepare<[], { attempts: number }>('SELECT attempts FROM jobs ORDER BY attempts')
      .all()
      .map((r) => r.attempts);
  } finally {
    db.close();
  }
}

/** Documents translated into one language (German). */
const ONE_TARGET = {
  mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
};

describe('Ctrl-C while an upload waits in the rate limiter', () => {
  // One request every 4 s: the upload waiting when the signal comes would leave some seconds after it.
  // One every 1,000 s: the run does not wait that out (its waits in the limiter are cut).
  it.each([0.25, 0.001])(
    'at %s requests per second: it is not sent, the run exits 130 at once; the next run uploads each document once',
    async (rps) => {
      p = await opsProject({
        manifest: {
          // A short grace: the first document's status poll also waits in the limiter.
          watch: { shutdown: 1 },
          ...ONE_TARGET,
        },
      });
      for (const f of FILES) p.write(f, `The text of ${f}.\n`);
      // The first upload leaves at once, the second waits in the limiter (two worker places).
      setRate(p, rps);
      const run = syncChild(p, ['--json', '--no-progress'], GUARD_MS);
      await run.firstRecorded();
      expect(Object.values(accepted(p)), run.stderr()).toEqual([1]);
      run.signal('SIGINT');
      await interrupted(run);
      // The service saw the one upload that had left before the signal, nothing more.
      expect(p.service.requests().filter((r) => r.path === '/v2/document')).toHaveLength(1);

      await nextSyncUploadsEachOnce(p, FILES);
    },
    120_000,
  );
});

describe('the quota used up (456) while an upload waits in the rate limiter', () => {
  it("the waiting upload is not sent: failed as the quota's, not an attempt; the next run uploads each document once", async () => {
    p = await opsProject({ manifest: ONE_TARGET });
    for (const f of FILES) p.write(f, `The text of ${f}.\n`);
    // The first upload leaves at once and is refused (456); the second waits 4 s in the limiter.
    p.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, status: 456, count: 1 });
    setRate(p, 0.25);
    const run = await p.cli(['sync', '--json']);
    expect(run.code, run.stderr).toBe(EXIT.failed);
    // Only the refused upload reached the service.
    expect(p.service.requests().filter((r) => r.path === '/v2/document')).toHaveLength(1);
    const stopped = JSON.parse(run.stdout) as SyncSummary;
    expect(stopped.failed.map((f) => [f.file, f.kind]).sort()).toEqual(FILES.map((f) => [f, 'quota']));
    expect(stopped.unconfirmedUploads).toEqual([]);
    // No attempt counted: neither the refused upload (456) nor the one that waited in the limiter.
    expect(attempts(p)).toEqual([0, 0, 0]);

    p.service.clearFaults();
    await nextSyncUploadsEachOnce(p, FILES);
  }, 120_000);
});

describe('Ctrl-C while an upload waits to be retried', () => {
  it('the retry is not sent: the run exits 130 at once, nothing is listed as possibly billed; the next run uploads it once', async () => {
    p = await opsProject({ manifest: ONE_TARGET });
    p.write('a.txt', 'The text of a.txt.\n');
    // The upload is refused for now (503, surely not taken) and retried after 30 s.
    const run = await refusedForNow(p, '/v2/document');
    run.signal('SIGINT');
    await interrupted(run);
    // The first attempt, nothing more.
    expect(p.service.requests()).toHaveLength(1);

    await nextSyncUploadsEachOnce(p, ['a.txt']);
  }, 120_000);
});
