// Benchmarks of a pipeline on a PostgreSQL state (docs/postgres.md):
//  - throughput of 1, 2 and 4 `locsync sync` workers (real processes) sharing one account whose
//    concurrency is 16, against the local service with job latency L: at least 90% of C/L with 4
//    workers, and never more than 16 documents in flight at the service (its request log);
//  - a no-op sync over 100,000 unchanged files (--quick: 10,000) on PostgreSQL: within 3x the same
//    no-op on SQLite (the PostgreSQL state is the SQLite one imported with `state import`);
//  - takeover: a worker killed with -9 while it holds uploaded documents; the time until another
//    worker asks the service about them: at most the lease + 5 s.
// The server is LOCSYNC_TEST_PG_URL, else the machine's 127.0.0.1:5432 (or a throwaway cluster);
// each measure gets a database of its own, dropped afterwards.
//
//   npx tsx bench/pg-workers.ts
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { stringify } from 'yaml';
import { silentLogger } from '../src/log/logger.js';
import { loadManifest } from '../src/manifest/load.js';
import { startService, type RunningService } from '../src/local-service/index.js';
import type { RequestLogEntry } from '../src/local-service/types.js';
import { importFromSqlite } from '../src/state/transfer.js';
import { openRunState } from '../src/cli/open-state.js';
import { runSync } from '../src/sync/engine.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../test/helpers/postgres.js';
import { benchSize, isQuick } from './lib/options.js';
import { translatingClient } from './lib/seed-client.js';
import { median, timed } from './lib/timing.js';
import { makeTree, withTempDir, writeDocsManifest } from './lib/tree.js';
import type { BenchResult } from './types.js';

const SELF = fileURLToPath(import.meta.url);
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const KEY = 'bench-pg-workers-key-0123';
const C = 16;
const L = 2;
const LEASE = 5;

/** `docs` text files and a manifest whose state is `stateUrl`, sharing the account's limits. */
async function pipeline(dir: string, docs: number, stateUrl: string, serviceUrl: string): Promise<string> {
  await makeTree(path.join(dir, 'src'), docs);
  const file = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    file,
    stringify({
      state: stateUrl,
      postgres: { lease_seconds: LEASE },
      service: {
        url: serviceUrl,
        key_env: 'LOCSYNC_BENCH_KEY',
        concurrency: C,
        max_undownloaded: C,
        requests_per_second: 1000,
      },
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    }),
  );
  return file;
}

function spawnSync(manifestPath: string): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'sync', '-c', manifestPath], {
    env: { ...process.env, LOCSYNC_BENCH_KEY: KEY, LOCSYNC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

const isUpload = (e: RequestLogEntry) => e.method === 'POST' && e.path === '/v2/document' && e.status === 200;
const isResult = (e: RequestLogEntry) =>
  e.method === 'POST' && /^\/v2\/document\/[^/]+\/result$/.test(e.path) && e.status === 200;

/** Documents uploaded and not yet downloaded at once, at most (the log's arrival order). */
function peakInFlight(log: RequestLogEntry[]): number {
  let now = 0;
  let peak = 0;
  for (const e of [...log].sort((a, b) => a.seq - b.seq)) {
    if (isUpload(e)) now++;
    else if (isResult(e)) now--;
    peak = Math.max(peak, now);
  }
  return peak;
}

async function withDatabase<T>(work: (db: TestDatabase) => Promise<T>): Promise<T> {
  const server = await pgForTests();
  if (!server) throw new Error('no PostgreSQL server (set LOCSYNC_TEST_PG_URL, or install postgresql)');
  const db = await createTestDatabase(server);
  try {
    return await work(db);
  } finally {
    await db.drop();
  }
}

async function withService<T>(work: (s: RunningService) => Promise<T>, latency = L): Promise<T> {
  const service = await startService({
    authKey: KEY,
    queueSeconds: 0,
    translateSeconds: latency,
    workers: 64,
    maxUndownloaded: 1000,
  });
  try {
    return await work(service);
  } finally {
    await service.close();
  }
}

interface Throughput {
  workers: number;
  docs: number;
  docsPerSecond: number;
  wallMs: number;
  peak: number;
  uploads: number;
}

/** `workers` syncs at once; documents per second over the service's busy window. */
function throughput(workers: number, docs: number): Promise<Throughput> {
  return withTempDir(`pg-workers-${workers}`, (dir) =>
    withDatabase((db) =>
      withService(async (service) => {
        const manifestPath = await pipeline(dir, docs, db.url, service.url);
        const { value: codes, ms } = await timed(() =>
          Promise.all(Array.from({ length: workers }, () => spawnSync(manifestPath).exited)),
        );
        if (codes.some((c) => c !== 0)) throw new Error(`a worker exited ${codes.join(', ')}`);
        const log = service.requests();
        const uploads = log.filter(isUpload);
        const results = log.filter(isResult);
        if (results.length !== docs) throw new Error(`${results.length} of ${docs} documents downloaded`);
        const first = Math.min(...uploads.map((e) => Date.parse(e.time)));
        const last = Math.max(...results.map((e) => Date.parse(e.time)));
        return {
          workers,
          docs,
          docsPerSecond: docs / ((last - first) / 1000),
          wallMs: ms,
          peak: peakInFlight(log),
          uploads: uploads.length,
        };
      }),
    ),
  );
}

/** A no-op sync in a fresh process (the child mode below): its duration. */
function noopChild(manifestPath: string): Promise<{ ms: number; unchanged: number; translated: number }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', SELF, '--noop', manifestPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`no-op exited ${code}`)),
    );
  });
}

/** One sync in this process with a stand-in service that translates at once (no-op and seed). */
async function syncInProcess(manifestPath: string): Promise<{ translated: number; unchanged: number }> {
  const loaded = await loadManifest(manifestPath);
  const logger = silentLogger();
  const opened = await openRunState(loaded, { logger, command: 'sync', drives: true });
  try {
    const s = await runSync({
      loaded,
      state: opened.state,
      logger,
      connection: { client: translatingClient() },
      options: { poll: { initialMs: 0, minMs: 0 }, concurrency: 64, maxUndownloaded: 1000 },
    });
    return { translated: s.translated, unchanged: s.unchanged };
  } finally {
    await opened.close();
  }
}

/** Median of three no-op syncs of a manifest (each in a fresh process). */
async function medianNoop(manifestPath: string, files: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await noopChild(manifestPath);
    if (r.unchanged !== files || r.translated !== 0) throw new Error(`not a no-op: ${JSON.stringify(r)}`);
    ms.push(r.ms);
  }
  return median(ms);
}

/** The same no-op over `files` files on SQLite, then on PostgreSQL (the SQLite state imported). */
function noopBoth(files: number): Promise<{ sqliteMs: number; pgMs: number }> {
  return withTempDir('pg-noop', (dir) =>
    withDatabase(async (db) => {
      process.stderr.write(`pg-workers: ${files} files, seeding the SQLite state\n`);
      await makeTree(path.join(dir, 'src'), files);
      const sqliteManifest = writeDocsManifest(dir, { url: 'http://127.0.0.1:9' });
      const seeded = await syncInProcess(sqliteManifest);
      if (seeded.translated !== files) throw new Error(`seeding translated ${seeded.translated}`);
      await noopChild(sqliteManifest); // records the fast-path marks, as a second nightly run would
      const sqliteMs = await medianNoop(sqliteManifest, files);

      process.stderr.write('pg-workers: importing it into PostgreSQL\n');
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        const { migrate } = await import('../src/state/postgres/migrate.js');
        await migrate(pool, db.url);
        await importFromSqlite(pool, path.join(dir, '.locsync', 'state.db'));
      } finally {
        await pool.end();
      }
      const pgManifest = path.join(dir, 'pipeline-pg.yaml');
      const doc = fs.readFileSync(sqliteManifest, 'utf8');
      fs.writeFileSync(pgManifest, `state: ${db.url}\n${doc}`);
      await noopChild(pgManifest);
      const pgMs = await medianNoop(pgManifest, files);
      return { sqliteMs, pgMs };
    }),
  );
}

/**
 * Two workers at work; one is killed with -9 while it holds uploaded documents: seconds until the
 * other asks the service about them (it takes them over once their lease ran out).
 */
export function takeover(): Promise<{ seconds: number; reuploads: number }> {
  const docs = 32;
  return withTempDir('pg-takeover', (dir) =>
    withDatabase((db) =>
      withService(async (service) => {
        const manifestPath = await pipeline(dir, docs, db.url, service.url);
        const victim = spawnSync(manifestPath);
        let rescuer: ReturnType<typeof spawnSync> | undefined;
        const check = new pg.Client({ connectionString: db.url });
        await check.connect();
        const victimsUploaded = async () =>
          (
            await check
              .query<{ document_id: string }>(
                `SELECT j.document_id FROM jobs j JOIN runs r ON r.id = j.run_id JOIN workers w ON w.id = r.worker_id
                 WHERE w.pid = $1 AND j.status = 'uploaded' AND j.document_id IS NOT NULL`,
                [victim.child.pid],
              )
              .catch(() => ({ rows: [] }))
          ).rows.map((r) => r.document_id);
        try {
          while ((await victimsUploaded()).length < 3) {
            if (victim.child.exitCode !== null)
              throw new Error('the first worker ended before it held uploads');
            await new Promise((r) => setTimeout(r, 20));
          }
          // The other worker starts now (its start takes less than the lease): the victim dies at once.
          rescuer = spawnSync(manifestPath);
          victim.child.kill('SIGKILL');
          const killedAt = Date.now();
          await victim.exited;
          const orphans = await victimsUploaded();
          if ((await rescuer.exited) !== 0) throw new Error('the rescuing worker failed');
          const asked = service
            .requests()
            .filter((e) => Date.parse(e.time) >= killedAt)
            .filter((e) => orphans.some((id) => e.path.startsWith(`/v2/document/${id}`)))
            .map((e) => Date.parse(e.time));
          if (!asked.length) throw new Error('the orphaned documents were never asked for');
          // A document with a recorded id is collected by the other worker, never uploaded again:
          // its output's done job carries the same document id.
          const collected = await check.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM jobs WHERE status = 'done' AND document_id = ANY($1)`,
            [orphans],
          );
          return {
            seconds: (Math.min(...asked) - killedAt) / 1000,
            reuploads: orphans.length - (collected.rows[0]?.n ?? 0),
          };
        } finally {
          rescuer?.child.kill('SIGKILL');
          await check.end();
        }
      }, 3),
    ),
  );
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const docs = benchSize(C * 8, C * 3, 'LOCSYNC_BENCH_PG_DOCS');
  for (const workers of isQuick() ? [1, 4] : [1, 2, 4]) {
    process.stderr.write(`pg-workers: ${workers} worker(s), ${docs} documents, C = ${C}, L = ${L} s\n`);
    const t = await throughput(workers, docs);
    const bound = C / L;
    results.push({
      name: `pg-workers: documents/s, ${workers} worker(s) sharing C = ${C}, L = ${L} s (${docs} documents; wall ${(t.wallMs / 1000).toFixed(1)} s)`,
      value: Math.round(t.docsPerSecond * 100) / 100,
      unit: 'docs/s',
      ...(workers === 4
        ? {
            bound: `>= 90% of C/L = ${bound.toFixed(2)}`,
            ratio: Math.round((t.docsPerSecond / bound) * 100) / 100,
            meets: t.docsPerSecond >= 0.9 * bound,
          }
        : { note: `${Math.round((t.docsPerSecond / bound) * 100)}% of C/L` }),
    });
    results.push({
      name: `pg-workers: peak documents in flight at the service, ${workers} worker(s)`,
      value: t.peak,
      unit: 'documents',
      bound: `<= C = ${C}`,
      ratio: Math.round((t.peak / C) * 100) / 100,
    });
    if (t.uploads !== docs) throw new Error(`${t.uploads} uploads for ${docs} documents`);
  }
  const files = benchSize(100_000, 10_000, 'LOCSYNC_BENCH_NOOP_FILES');
  const noop = await noopBoth(files);
  results.push({
    name: `pg-workers: no-op sync over ${files} unchanged files on PostgreSQL`,
    value: Math.round(noop.pgMs),
    unit: 'ms',
    bound: `<= 3x the SQLite no-op (${Math.round(noop.sqliteMs)} ms)`,
    ratio: Math.round((noop.pgMs / (3 * noop.sqliteMs)) * 100) / 100,
  });
  process.stderr.write('pg-workers: takeover after kill -9\n');
  const t = await takeover();
  results.push({
    name: `pg-workers: takeover after kill -9 (lease ${LEASE} s): until another worker asks for the orphaned documents`,
    value: Math.round(t.seconds * 10) / 10,
    unit: 's',
    bound: `<= lease + 5 s = ${LEASE + 5} s`,
    ratio: Math.round((t.seconds / (LEASE + 5)) * 100) / 100,
  });
  results.push({
    name: 'pg-workers: documents with a recorded id uploaded again by the takeover',
    value: t.reuploads,
    unit: 'uploads',
    bound: '0',
    meets: t.reuploads === 0,
  });
  return results;
}

if (process.argv[2] === '--noop' && process.argv[3]) {
  const { value, ms } = await timed(() => syncInProcess(process.argv[3]!));
  process.stdout.write(JSON.stringify({ ms, ...value }) + '\n');
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run())
    console.log(
      `${r.name}: ${r.value} ${r.unit}${r.bound ? `  [bound: ${r.bound}; ratio ${r.ratio}]` : ''}${r.note ? `  (${r.note})` : ''}`,
    );
}
