import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeldByOtherWorkerError } from '../../src/state/postgres/ledger.js';
import { PostgresState } from '../../src/state/postgres/store.js';
import { listWorkers } from '../../src/state/postgres/workers.js';
import type { JobRecord, NewJob } from '../../src/state/types.js';
import { freezeWorker } from '../helpers/backends.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// The job ledger shared by several workers: one holder per unit of work, takeover of a dead
// worker's jobs with their document id and key, and no upload by a worker that lost its unit.

const server = await pgForTests();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const job = (over: Partial<NewJob> = {}): NewJob => ({
  mapping: 'docs',
  rel_path: 'a.docx',
  sha256: 'sha-a',
  target_lang: 'de',
  fingerprint: 'fp',
  base_fingerprint: 'base',
  output_path: 'out/de/a.docx',
  run_id: null,
  ...over,
});

describe.skipIf(!server)('the job ledger across workers', () => {
  let db: TestDatabase;
  const states: PostgresState[] = [];
  const worker = async (leaseSeconds: number, command = 'sync') => {
    const st = await PostgresState.open({ url: db.url }, { worker: { command, leaseSeconds } });
    states.push(st);
    return st;
  };
  /** A worker killed with -9: it stops beating and never says goodbye. */
  const kill = async (st: PostgresState) => {
    freezeWorker(st);
    await st.pool.end();
    states.splice(states.indexOf(st), 1);
  };
  /** `n` open jobs recorded by a worker that stopped (its units given back). */
  const openJobsLeftBehind = async (n: number) => {
    const seed = await worker(30);
    for (let i = 0; i < n; i++)
      await seed.jobs.created(
        job({ rel_path: `f${i}.docx`, sha256: `sha-${i}`, output_path: `out/de/f${i}.docx` }),
      );
    await seed.close();
    states.splice(states.indexOf(seed), 1);
  };
  beforeEach(async () => {
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    for (const st of states.splice(0)) await st.close().catch(() => undefined);
    await db.drop();
  });

  it('one worker per unit; a dead worker’s uploaded job is resumed by another with its id and key', async () => {
    const a = await worker(0.6);
    const b = await worker(30);
    const runA = await a.runs.start('sync');
    let ja = await a.jobs.uploadStarted(await a.jobs.created(job({ run_id: runA })), runA);
    ja = await a.jobs.uploaded(ja, 'DOC-1', 'KEY-111111');
    // Another output of the same content, target and settings is the same unit: b must leave it.
    await expect(
      b.jobs.created(job({ rel_path: 'copy.docx', output_path: 'out/de/copy.docx' })),
    ).rejects.toThrow(HeldByOtherWorkerError);
    expect(await b.jobs.open()).toEqual([]);
    const held = (await listWorkers(b.pool)).find((w) => w.id === a.workerId);
    expect(held).toMatchObject({ alive: true, jobs_held: 1 });

    await kill(a);
    await sleep(900);
    const runB = await b.runs.start('sync');
    const listed = await b.jobs.open();
    const taken = await Promise.all(
      listed.map(async (j) => ((await b.jobs.take(j)) as { job: JobRecord }).job),
    );
    expect(taken.map((j) => [j.id, j.status, j.document_id, j.document_key])).toEqual([
      [ja.id, 'uploaded', 'DOC-1', 'KEY-111111'],
    ]);
    // The dead worker's run is marked crashed; b's own run is running.
    const runs = await b.runs.recent();
    expect(runs.map((r) => [r.id, r.status])).toEqual([
      [runB, 'running'],
      [runA, 'crashed'],
    ]);
    const done = await b.jobs.done(taken[0]!, 50_000);
    expect(done).toMatchObject({ status: 'done', attempts: 1, document_id: 'DOC-1' });
    expect((await listWorkers(b.pool)).find((w) => w.id === b.workerId)).toMatchObject({ jobs_held: 0 });
  });

  it('a worker that stalled past its lease cannot upload a unit another worker has taken over', async () => {
    const a = await worker(0.5);
    const b = await worker(30);
    const runA = await a.runs.start('sync');
    const ja = await a.jobs.created(job({ run_id: runA }));
    // a stalls (no heartbeat: a long GC pause, a frozen VM): its lease runs out and b takes over.
    freezeWorker(a);
    await sleep(800);
    const [listed] = await b.jobs.open();
    expect(listed?.id).toBe(ja.id);
    const { job: jb } = (await b.jobs.take(listed!)) as { job: JobRecord };
    await expect(a.jobs.uploadStarted(ja, runA)).rejects.toThrow(HeldByOtherWorkerError);
    expect(await b.jobs.get(ja.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      upload_started_at: null,
    });
    const runB = await b.runs.start('sync');
    expect(await b.jobs.uploadStarted(jb!, runB)).toMatchObject({ attempts: 1, run_id: runB });
  });

  it('a worker that stalled past its lease during its upload cannot record the answer, or any later step, once another took the job over', async () => {
    const a = await worker(0.5);
    const b = await worker(30);
    const runA = await a.runs.start('sync');
    // a starts its upload while it holds the unit, then stalls before the answer is recorded.
    const ja = await a.jobs.uploadStarted(await a.jobs.created(job({ run_id: runA })), runA);
    freezeWorker(a);
    await sleep(800);
    const [listed] = await b.jobs.open();
    const { job: jb } = (await b.jobs.take(listed!)) as { job: JobRecord };
    // b finds the upload unanswered (so it counts it as unconfirmed and uploads again).
    expect(jb).toMatchObject({ id: ja.id, status: 'pending', document_id: null });
    expect(jb.upload_started_at).not.toBeNull();

    const stale = [
      () => a.jobs.uploaded(ja, 'DOC-A', 'KEY-AAAAAA'),
      () => a.jobs.downloading({ ...ja, status: 'uploaded', document_id: 'DOC-A' }, 900, 1),
      () => a.jobs.done(ja, 900),
      () =>
        a.jobs.failed(ja, {
          kind: 'transient',
          error: 'x',
          keepDocument: false,
          countsAttempt: true,
          retriedKept: false,
        }),
      () => a.jobs.lostDownload(ja),
      () => a.jobs.superseded(ja, 'replaced'),
    ];
    for (const write of stale) await expect(write()).rejects.toThrow(HeldByOtherWorkerError);
    expect(await b.jobs.get(ja.id)).toMatchObject({
      status: 'pending',
      document_id: null,
      billed_characters: null,
      error: null,
    });
    // b drives the job as its own; a's writes stay refused after it.
    const runB = await b.runs.start('sync');
    const up = await b.jobs.uploaded(await b.jobs.uploadStarted(jb, runB), 'DOC-B', 'KEY-BBBBBB');
    await expect(a.jobs.done({ ...ja, status: 'uploaded', document_id: 'DOC-A' }, 900)).rejects.toThrow(
      HeldByOtherWorkerError,
    );
    expect(await b.jobs.done(up, 500)).toMatchObject({
      status: 'done',
      document_id: 'DOC-B',
      billed_characters: 500,
    });
  });

  it('live workers each take different open jobs, and never one another’s', async () => {
    await openJobsLeftBehind(12);
    const workers = await Promise.all([1, 2, 3].map(() => worker(30)));
    const got = await Promise.all(
      workers.map(async (w) => {
        const mine: number[] = [];
        for (const j of await w.jobs.open()) {
          const took = await w.jobs.take(j);
          if ('job' in took) mine.push(took.job.id);
        }
        return mine;
      }),
    );
    const ids = got.flat();
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
  });

  it('a worker holds the units of the jobs it has started, not of every job it listed: killed, it leaves only those to its lease (issue 29)', async () => {
    await openJobsLeftBehind(12);
    const a = await worker(30);
    const listed = await a.jobs.open();
    expect(listed).toHaveLength(12);
    // It starts three (its places) and is killed.
    for (const j of listed.slice(0, 3)) expect(await a.jobs.take(j)).toHaveProperty('job');
    expect((await listWorkers(a.pool)).find((w) => w.id === a.workerId)).toMatchObject({ jobs_held: 3 });
    const b = await worker(30);
    await kill(a);
    // The other nine are b's to start at once, without waiting for a's lease to run out.
    const forB = await b.jobs.open();
    expect(forB.map((j) => j.id).sort()).toEqual(
      listed
        .slice(3)
        .map((j) => j.id)
        .sort(),
    );
    for (const j of forB) expect(await b.jobs.take(j)).toHaveProperty('job');
    expect(await b.jobs.take(listed[0]!)).toEqual({ holder: a.workerId });
  });
});
