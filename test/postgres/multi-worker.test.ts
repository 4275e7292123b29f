import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/local-service/engine/index.js';
import { startService, type RunningService } from '../../src/local-service/index.js';
import {
  createTestDatabase,
  pgForTests,
  startThrowawayCluster,
  type TestDatabase,
} from '../helpers/postgres.js';
import {
  killWorkers,
  peakInFlight,
  makeSources,
  spawnWorker,
  uploads,
  waitFor,
  writePipeline,
  type WorkerProcess,
} from '../helpers/workers.js';

// Several `locsync sync` processes with one manifest, one PostgreSQL state and one local service
// (real processes, real HTTP, real PostgreSQL): every output exactly once, no document uploaded
// twice, never more than the account's `concurrency` documents in flight at the service; a worker
// killed with -9 has its jobs finished by another after its lease, without a new upload for any job
// that had an id; a PostgreSQL restart loses nothing.

const server = await pgForTests();

let dir: string;
let service: RunningService;

const worker = (manifestPath: string) => spawnWorker(['sync', '-c', manifestPath], dir);

/** n sources, an output folder, and the manifest of workers sharing the state at `dbUrl`. */
function pipeline(dbUrl: string, n: number, o: { lease: number; concurrency: number }) {
  const { src, out } = makeSources(dir, n);
  const manifestPath = writePipeline(dir, { dbUrl, serviceUrl: service.url, ...o });
  return { src, out, manifestPath };
}

/** Every worker exits 0 (their output is shown when one does not). */
async function allSucceed(workers: WorkerProcess[]): Promise<void> {
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect(codes, workers.map((w) => w.output()).join('\n')).toEqual(workers.map(() => 0));
}

describe.skipIf(!server)('several worker processes on one PostgreSQL state', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-workers-'));
    service = await startService({ translateSeconds: 0.6, queueSeconds: 0, workers: 16 });
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const expectEveryOutputOnce = (out: string, n: number) => {
    const names = fs.readdirSync(out).filter((f) => !f.startsWith('.'));
    expect(names.sort()).toEqual(Array.from({ length: n }, (_, i) => `doc${i}.txt`).sort());
    for (const f of names) expect(fs.readFileSync(path.join(out, f), 'utf8').length).toBeGreaterThan(0);
  };

  it('4 workers: every output once, no document uploaded twice, the global cap held at the service', async () => {
    const db: TestDatabase = await createTestDatabase(server!);
    try {
      const n = 24;
      const { src, out, manifestPath } = pipeline(db.url, n, { lease: 10, concurrency: 3 });
      const workers = [1, 2, 3, 4].map(() => worker(manifestPath));
      await allSucceed(workers);
      expectEveryOutputOnce(out, n);
      const up = uploads(service.requests());
      expect(up.map((e) => e.upload?.filename).sort()).toEqual(fs.readdirSync(src).sort());
      expect(peakInFlight(service.requests())).toBeLessThanOrEqual(3);
      // The work was shared: more than one worker made jobs.
      const check = new pg.Client({ connectionString: db.url });
      await check.connect();
      const by = await check.query(`SELECT count(DISTINCT worker_id)::int AS n FROM runs`);
      await check.end();
      expect(by.rows[0].n).toBe(4);
    } finally {
      await db.drop();
    }
  }, 120_000);

  it('a worker that starts while another holds every place gets its share of them, and uploads', async () => {
    // The service translates nothing until the second worker waits for a place: how long a worker
    // process takes to start (seconds on a loaded machine, while the first one works through its
    // plan) decides nothing; what is tested is who gets the places the first gives back then.
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const engine = createEngine();
    await service.close();
    service = await startService({
      translateSeconds: 0.6,
      queueSeconds: 0,
      workers: 16,
      engine: {
        ...engine,
        translateDocument: async (input, output, opts, signal) => {
          await gate;
          return engine.translateDocument(input, output, opts, signal);
        },
      },
    });
    const db: TestDatabase = await createTestDatabase(server!);
    const check = new pg.Client({ connectionString: db.url });
    try {
      const n = 40;
      const { out, manifestPath } = pipeline(db.url, n, { lease: 10, concurrency: 4 });
      await check.connect();
      // A worker with uploads waiting for a place says so on the places channel (limits.ts).
      const wanting = new Set<string>();
      check.on('notification', (m) => {
        if (!m.payload?.startsWith('want:')) return;
        wanting.add((JSON.parse(m.payload.slice(5)) as { worker: string }).worker);
      });
      await check.query('LISTEN locsync_places');
      const first = worker(manifestPath);
      // The first worker holds every place of the account and has most of the plan still to do.
      await waitFor('the first worker to hold every place', async () => {
        const r = await check
          .query(
            `SELECT count(*)::int AS n FROM locsync_account.limit_slots WHERE kind = 'in_flight' AND worker_id IS NOT NULL`,
          )
          .catch(() => ({ rows: [{ n: 0 }] }));
        return r.rows[0].n >= 4;
      });
      const second = worker(manifestPath);
      await waitFor(
        'the second worker to wait for a place',
        () => wanting.size >= 2,
        60_000,
        () => second.output(),
      );
      open();
      await allSucceed([first, second]);
      expectEveryOutputOnce(out, n);
      const uploadsOf = (w: WorkerProcess) => w.logLines().filter((l) => l.msg === 'uploading').length;
      expect(uploadsOf(first) + uploadsOf(second)).toBe(n);
      // Places given back go to whichever worker waits, not always to the first one's own queue.
      expect(uploadsOf(second), second.output()).toBeGreaterThanOrEqual(n / 4);
    } finally {
      open(); // a failure before: the service can close
      await check.end().catch(() => undefined);
      await db.drop();
    }
  }, 120_000);

  it('kill -9 of a worker: another finishes its jobs after the lease, with no new upload for a job that had an id', async () => {
    const db: TestDatabase = await createTestDatabase(server!);
    const check = new pg.Client({ connectionString: db.url });
    try {
      const n = 12;
      const { out, manifestPath } = pipeline(db.url, n, { lease: 5, concurrency: 4 });
      const victim = worker(manifestPath);
      await check.connect();
      // Kill it once it holds uploaded documents (recorded ids) not yet downloaded.
      await waitFor('the first worker to hold uploaded documents', async () => {
        const r = await check
          .query(`SELECT count(*)::int AS n FROM jobs WHERE status = 'uploaded'`)
          .catch(() => ({ rows: [{ n: 0 }] }));
        return r.rows[0].n >= 2;
      });
      victim.child.kill('SIGKILL');
      await victim.exited;
      const orphaned = (
        await check.query<{ rel_path: string }>(
          `SELECT rel_path FROM jobs WHERE document_id IS NOT NULL AND status <> 'done'`,
        )
      ).rows.map((r) => r.rel_path);
      expect(orphaned.length).toBeGreaterThan(0);

      const rescuers = [worker(manifestPath), worker(manifestPath)];
      await allSucceed(rescuers);
      expectEveryOutputOnce(out, n);
      // Each rescuer scanned the tree again for the work it took over: its files counted once.
      for (const r of rescuers) expect(r.output()).toMatch(new RegExp(`^${n} source files; `, 'm'));
      const up = uploads(service.requests());
      for (const f of orphaned) expect(up.filter((e) => e.upload?.filename === f)).toHaveLength(1);
      const takeovers = await check.query(`SELECT count(*)::int AS n FROM runs WHERE status = 'crashed'`);
      expect(takeovers.rows[0].n).toBe(1);
    } finally {
      await check.end().catch(() => undefined);
      await db.drop();
    }
  }, 120_000);

  it('PostgreSQL restarted mid-run: the workers resume and nothing is lost or uploaded twice', async () => {
    const cluster = await startThrowawayCluster();
    if (!cluster)
      return expect.fail('no initdb/pg_ctl for a throwaway cluster (the shared server is never restarted)');
    try {
      const db = await createTestDatabase(cluster);
      const n = 16;
      const { src, out, manifestPath } = pipeline(db.url, n, { lease: 10, concurrency: 3 });
      const workers = [worker(manifestPath), worker(manifestPath)];
      await waitFor(
        'some documents done',
        async () => fs.readdirSync(out).filter((f) => !f.startsWith('.')).length >= 3,
      );
      await cluster.restart({ downMs: 1500 });
      await allSucceed(workers);
      expectEveryOutputOnce(out, n);
      const up = uploads(service.requests());
      expect(up.map((e) => e.upload?.filename).sort()).toEqual(fs.readdirSync(src).sort());
    } finally {
      await cluster.stop();
    }
  }, 120_000);
});
