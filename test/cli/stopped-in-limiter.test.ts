import fs from 'node:fs';
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

// Ctrl-C stops uploading (so do the quota used up and a budget cap reached): an upload still waiting
// in the client's rate limiter when it comes has sent nothing and must not leave after it (possibly
// many seconds later, billed): it ends unsent, for the next run, which uploads it once. Over real
// HTTP (the local service on port 0), a real state file and the CLI as a child process.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const FILES = ['a.txt', 'b.txt', 'c.txt'];

/** The attempts each job has counted, by source file. */
function attempts(project: OpsProject): Record<string, number> {
  const db = new Database(path.join(project.dir, '.locsync/state.db'), { readonly: true });
  try {
    return Object.fromEntries(
      db
        .prepare<[], { rel_path: string; attempts: number }>('SELECT rel_path, attempts FROM jobs')
        .all()
        .map((r) => [r.rel_path, r.attempts]),
    );
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
    expect(attempts(p)).toEqual(Object.fromEntries(FILES.map((f) => [f, 0])));

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

describe('a budget cap reached while uploads wait in the rate limiter', () => {
  it("the waiting uploads are not sent: failed as the budget's, no attempt, not possibly billed; exit 5; a run with a raised cap uploads each once", async () => {
    p = await opsProject({ manifest: ONE_TARGET });
    for (const f of FILES) p.write(f, `The text of ${f}.\n`);
    // Three worker places: every upload starts at once and reserves its estimate.
    fs.writeFileSync(
      p.manifest,
      fs.readFileSync(p.manifest, 'utf8').replace(/concurrency: .*/, 'concurrency: 3'),
    );
    const plan = await p.cli(['plan', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const planned = (JSON.parse(plan.stdout) as { files: { price: { total: { billed: number } } } }).files
      .price.total.billed;
    // The plan just fits the cap. The first upload leaves at once, is taken, and its answer is lost:
    // its repeat (after the 5 s pause) would count it twice, over the cap. The other two uploads
    // wait in the limiter meanwhile (one request per 1,000 s: the run does not wait that out).
    p.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, drop: 1, dropAfterBody: true });
    setRate(p, 0.001);
    const run = syncChild(p, ['--json', '--no-progress', '--max-billed', String(planned)], GUARD_MS);
    const { code, killed } = await run.exited;
    expect(killed, run.stderr()).toBe(false);
    expect(code, run.stderr()).toBe(EXIT.budget);
    expect(run.stderr()).toContain('budget reached during the run');
    // The service saw the upload the budget allowed before the cap was reached, nothing more.
    const uploads = p.service.requests().filter((r) => r.path === '/v2/document');
    expect(uploads, run.stderr()).toHaveLength(1);
    const first = uploads[0]!.upload!.filename;
    const waited = FILES.filter((f) => f !== first);
    const summary = JSON.parse(run.stdout()) as SyncSummary;
    // The uploads that waited in the limiter failed as the budget's, for the next run: not as
    // possibly billed (maybe-accepted), and listed nowhere as such. The repeat the cap refused
    // itself fails as the budget's too; nothing was uploaded twice.
    expect(summary.failed.map((f) => [f.file, f.kind, f.willRetry]).sort()).toEqual(
      FILES.map((f) => [f, 'budget', true]),
    );
    expect(summary.unconfirmedUploads).toEqual([]);
    // No attempt counted for them; the upload whose answer was lost keeps its attempt (the repeat
    // the cap refused never left, and gives back none).
    expect(attempts(p)).toEqual({ [first]: 1, ...Object.fromEntries(waited.map((f) => [f, 0])) });
    // status says what needs attention (exit 1): the budget's failures, and as possibly billed only
    // the upload whose answer was lost.
    const status = await p.cli(['status', '--json', '--no-scan']);
    expect(status.code, status.stderr).toBe(1);
    const s = JSON.parse(status.stdout) as {
      last_outcome: { status: string; reason: string };
      failures: Array<{ file: string; kind: string }>;
      possibly_billed_twice: Array<{ file: string }>;
    };
    expect(s.last_outcome).toMatchObject({ status: 'failed', reason: 'budget' });
    for (const f of waited) expect(s.failures.find((x) => x.file === f)?.kind, f).toBe('budget');
    expect(s.possibly_billed_twice.map((x) => x.file)).toEqual([first]);

    // A raised cap: each upload that waited is sent once; the one whose answer was lost once more.
    setRate(p, 1000);
    const rerun = await p.cli(['sync', '--json', '--max-billed', String(10 * planned)]);
    expect(rerun.code, rerun.stderr).toBe(EXIT.ok);
    expect((JSON.parse(rerun.stdout) as SyncSummary).failed).toEqual([]);
    for (const f of FILES) expect(fs.existsSync(path.join(p.dir, 'out/de', f)), f).toBe(true);
    expect(accepted(p)).toEqual({ [first]: 2, ...Object.fromEntries(waited.map((f) => [f, 1])) });
  }, 120_000);
});
