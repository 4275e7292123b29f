import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import type { RequestLogEntry } from '../../src/local-service/types.js';
import { CLI_ARGS } from './cli.js';
import { createTestDatabase, type PgServer, type TestDatabase } from './postgres.js';

// locsync processes working on one pipeline (`sync` or `watch` workers), spawned as a user runs
// them, and what their tests read off the local service's request log.

export const WORKER_KEY_ENV = 'LOCSYNC_TEST_KEY';
const KEY = 'test-key-123456';

export interface WorkerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** stdout and stderr so far. */
  output: () => string;
  /** The JSON log lines so far. */
  logLines: () => Array<Record<string, unknown>>;
}

const running: ChildProcess[] = [];

/** `locsync <args>` in `cwd`, logging JSON at info level; killed by killWorkers(). */
export function spawnWorker(args: string[], cwd: string): WorkerProcess {
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', [WORKER_KEY_ENV]: KEY, LOCSYNC_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logLines = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, exited, output: () => output, logLines };
}

/** Kill every worker still running (afterEach). */
export function killWorkers(): void {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/** Characters the service billed for text requests of its log (what the account pays for them). */
export const textBilled = (log: RequestLogEntry[]) =>
  log
    .filter((e) => e.path === '/v2/translate' && e.status === 200)
    .reduce((n, e) => n + (e.text?.characters ?? 0), 0);

/** Successful uploads of the service's request log. */
export const uploads = (log: RequestLogEntry[]) =>
  log.filter((e) => e.method === 'POST' && e.path === '/v2/document' && e.status === 200);

/**
 * Documents uploaded and not yet asked for their result, at most, over the log's arrival order.
 * With `afterSeq`: only documents uploaded after that entry (a killed worker's documents, whose
 * results are asked for only once another worker takes them over, are left out).
 */
export function peakInFlight(log: RequestLogEntry[], afterSeq = -1): number {
  const open = new Set<string>();
  let now = 0;
  let peak = 0;
  for (const e of [...log].sort((a, b) => a.seq - b.seq)) {
    if (e.status !== 200 || e.method !== 'POST') continue;
    if (e.path === '/v2/document') {
      if (e.seq <= afterSeq) continue;
      open.add(e.upload?.document_id ?? e.documentId ?? `#${e.seq}`);
      now++;
    } else {
      const id = /^\/v2\/document\/([^/]+)\/result$/.exec(e.path)?.[1];
      if (id === undefined) continue;
      if (afterSeq >= 0 && !open.delete(id)) continue;
      now--;
    }
    peak = Math.max(peak, now);
  }
  return peak;
}

/** Wait until `cond` holds; on timeout the error carries `show()` (a worker's log, say). */
export async function waitFor(
  what: string,
  cond: () => Promise<boolean> | boolean,
  ms = 60_000,
  show?: () => string,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${show ? `:\n${show()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface PipelineOptions {
  dbUrl: string;
  serviceUrl: string;
  lease: number;
  /** The account's concurrency and max_undownloaded. */
  concurrency: number;
  /** Lines of a `watch:` section (indented by two), if any. */
  watch?: string[];
  /** File name of the manifest (several manifests of one pipeline can sit side by side). */
  name?: string;
  /** The mapping's method (default: document). */
  method?: 'segments';
}

/** The manifest of workers sharing the state at `dbUrl`: the folder `src` translated into `out` (de). */
export function writePipeline(dir: string, o: PipelineOptions): string {
  const manifestPath = path.join(dir, o.name ?? 'pipeline.yaml');
  fs.writeFileSync(
    manifestPath,
    [
      `state: ${o.dbUrl}`,
      'postgres:',
      `  lease_seconds: ${o.lease}`,
      'service:',
      `  url: ${o.serviceUrl}`,
      `  key_env: ${WORKER_KEY_ENV}`,
      `  concurrency: ${o.concurrency}`,
      `  max_undownloaded: ${o.concurrency}`,
      '  requests_per_second: 200',
      ...(o.watch ? ['watch:', ...o.watch.map((l) => `  ${l}`)] : []),
      'mappings:',
      '  - name: docs',
      '    source: src',
      '    output: out/{path}',
      ...(o.method ? [`    method: ${o.method}`] : []),
      '    targets: [{ lang: de }]',
      '',
    ].join('\n'),
  );
  return manifestPath;
}

/** The source folder `src` with n documents doc0.txt…, and the output folder `out`. */
export function makeSources(dir: string, n: number): { src: string; out: string } {
  const src = path.join(dir, 'src');
  const out = path.join(dir, 'out');
  fs.mkdirSync(src, { recursive: true });
  fs.mkdirSync(out, { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `doc${i}.txt`), `Document number ${i}.\n`);
  return { src, out };
}

/** The translated files of `out` (hidden files aside). */
export const outputsIn = (out: string) =>
  fs
    .readdirSync(out)
    .filter((f) => !f.startsWith('.'))
    .sort();

/** A `locsync watch` worker started in `dir`, once it watches; and its status page. */
export async function startWatcher(
  manifestPath: string,
  dir: string,
): Promise<WorkerProcess & { url: string }> {
  const w = spawnWorker(['watch', '-c', manifestPath], dir);
  await waitFor('the watcher to be up', () => {
    if (w.child.exitCode !== null) throw new Error(`watch exited ${w.child.exitCode}:\n${w.output()}`);
    return w.logLines().some((l) => l.msg === 'watching for changes');
  });
  const url = w.logLines().find((l) => typeof l.url === 'string')!.url as string;
  return { ...w, url };
}

/** Stop a worker as a user does (SIGTERM); its exit code. */
export function stopWorkerProcess(w: WorkerProcess): Promise<number | null> {
  w.child.kill('SIGTERM');
  return w.exited;
}

/** The `watch:` lines of the watch tests' manifests (status page on a free port). */
export const TEST_WATCH = ['stability: 0.3', 'shutdown: 2', 'metrics: { host: 127.0.0.1, port: 0 }'];

export interface WatchBench {
  dir: string;
  service: RunningService;
  db: TestDatabase;
}

/**
 * Call inside a describe: each of its tests gets a folder, a local service and a database of its
 * own on `server`; its workers are killed after it.
 */
export function watchBench(server: PgServer | undefined): WatchBench {
  const bench = {} as WatchBench;
  beforeEach(async () => {
    bench.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pgwatch-'));
    bench.service = await startService({ translateSeconds: 0.5, queueSeconds: 0, workers: 8 });
    bench.db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    killWorkers();
    await bench.service.close();
    await bench.db.drop();
    fs.rmSync(bench.dir, { recursive: true, force: true });
  });
  return bench;
}
