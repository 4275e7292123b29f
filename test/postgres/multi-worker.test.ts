import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import type { RequestLogEntry } from '../../src/service/types.js';
import {
  createTestDatabase,
  pgForTests,
  startThrowawayCluster,
  type TestDatabase,
} from '../helpers/postgres.js';

// Several `locsync sync` processes with one manifest, one PostgreSQL state and one local service
// (real processes, real HTTP, real PostgreSQL): every output exactly once, no document uploaded
// twice, never more than the account's `concurrency` documents in flight at the service; a worker
// killed with -9 has its jobs finished by another after its lease, without a new upload for any job
// that had an id; a PostgreSQL restart loses nothing.

const server = await pgForTests();
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const KEY = 'test-key-123456';

interface Worker {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => string;
}

let dir: string;
let service: RunningService;
const children: ChildProcess[] = [];

/** One `locsync sync` worker of the pipeline. */
function spawnWorker(manifestPath: string): Worker {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'sync', '-c', manifestPath], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', LOCSYNC_TEST_KEY: KEY, LOCSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** n sources, an output folder, and the manifest of workers sharing the state at `dbUrl`. */
function pipeline(dbUrl: string, n: number, o: { lease: number; concurrency: number }) {
  const { src, out } = makeSources(n);
  const manifestPath = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    manifestPath,
    [
      `state: ${dbUrl}`,
      'postgres:',
      `  lease_seconds: ${o.lease}`,
      'service:',
      `  url: ${service.url}`,
      '  key_env: LOCSYNC_TEST_KEY',
      `  concurrency: ${o.concurrency}`,
      `  max_undownloaded: ${o.concurrency}`,
      '  requests_per_second: 200',
      'mappings:',
      '  - name: docs',
      '    source: src',
      '    output: out/{path}',
      '    targets: [{ lang: de }]',
      '',
    ].join('\n'),
  );
  return { src, out, manifestPath };
}

/** Every worker exits 0 (their output is shown when one does not). */
async function allSucceed(workers: Worker[]): Promise<void> {
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect(codes, workers.map((w) => w.output()).join('\n')).toEqual(workers.map(() => 0));
}

function makeSources(n: number): { src: string; out: string } {
  const src = path.join(dir, 'src');
  const out = path.join(dir, 'out');
  fs.mkdirSync(src);
  fs.mkdirSync(out);
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `doc${i}.txt`), `Document number ${i}.\n`);
  return { src, out };
}

const uploads = (log: RequestLogEntry[]) =>
  log.filter((e) => e.method === 'POST' && e.path === '/v2/document');

/** Documents uploaded and not yet asked for their result, at most, over the log's arrival order. */
function peakInFlight(log: RequestLogEntry[]): number {
  let now = 0;
  let peak = 0;
  for (const e of [...log].sort((a, b) => a.seq - b.seq)) {
    if (e.method === 'POST' && e.path === '/v2/document' && e.status === 200) now++;
    else if (e.method === 'POST' && /^\/v2\/document\/[^/]+\/result$/.test(e.path) && e.status === 200) now--;
    peak = Math.max(peak, now);
  }
  return peak;
}

async function waitFor(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!server)('several worker processes on one PostgreSQL state', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-workers-'));
    service = await startService({ translateSeconds: 0.6, queueSeconds: 0, workers: 16 });
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
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
      const workers = [1, 2, 3, 4].map(() => spawnWorker(manifestPath));
      await allSucceed(workers);
      expectEveryOutputOnce(out, n);
      const up = uploads(service.requests()).filter((e) => e.status === 200);
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

  it('kill -9 of a worker: another finishes its jobs after the lease, with no new upload for a job that had an id', async () => {
    const db: TestDatabase = await createTestDatabase(server!);
    const check = new pg.Client({ connectionString: db.url });
    try {
      const n = 12;
      const { out, manifestPath } = pipeline(db.url, n, { lease: 5, concurrency: 4 });
      const victim = spawnWorker(manifestPath);
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

      const rescuers = [spawnWorker(manifestPath), spawnWorker(manifestPath)];
      await allSucceed(rescuers);
      expectEveryOutputOnce(out, n);
      const up = uploads(service.requests()).filter((e) => e.status === 200);
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
      const workers = [spawnWorker(manifestPath), spawnWorker(manifestPath)];
      await waitFor(
        'some documents done',
        async () => fs.readdirSync(out).filter((f) => !f.startsWith('.')).length >= 3,
      );
      await cluster.restart({ downMs: 1500 });
      await allSucceed(workers);
      expectEveryOutputOnce(out, n);
      const up = uploads(service.requests()).filter((e) => e.status === 200);
      expect(up.map((e) => e.upload?.filename).sort()).toEqual(fs.readdirSync(src).sort());
    } finally {
      await cluster.stop();
    }
  }, 120_000);
});
