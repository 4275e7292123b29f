import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { stringify } from 'yaml';
import { expect } from 'vitest';
import { createEngine } from '../../src/local-service/engine/index.js';
import { extractPdf } from '../../src/documents/formats/pdf.js';
import { startService } from '../../src/local-service/index.js';
import type {
  FaultSpec,
  RequestLogEntry,
  RunningService,
  ServiceOptions,
} from '../../src/local-service/types.js';
import { openState, type JobRecord } from '../../src/state/store.js';
import { PART_SUFFIX } from '../../src/util/part-file.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { readZip } from '../formats/zip-helpers.js';
import { CLI_ARGS, ROOT } from './cli.js';

// The reliability (chaos) harness: a project folder with a manifest whose service.url points at a
// local service started here (persisted in a data folder, so it outlives every sync), and `locsync
// sync` run as a child process the way cron runs it — killed with SIGKILL at chosen moments and
// started again. Afterwards it checks what a user cares about: every output there with the right
// translated content, no partial files, and no document (sha256 + target) uploaded twice unless the
// pipeline itself reported why: state.db's lost downloads and unconfirmed uploads (an upload whose
// answer a crash hid), or a failure in a run's summary that a rerun uploads again (a document the
// service failed, an upload that may have been accepted). Used by test/chaos/*.test.ts.

const SAMPLES = fileURLToPath(new URL('../../samples', import.meta.url));
export const CHAOS_KEY_ENV = 'LOCSYNC_CHAOS_KEY';
const KEY = 'chaos-key-0123456789';
const UPLOAD_PATH = '/v2/document';

/** `npm run test:chaos` sets LOCSYNC_CHAOS_FULL=1: full-scale defaults instead of the short ones of npm test. */
export const CHAOS_FULL = !!process.env.LOCSYNC_CHAOS_FULL && process.env.LOCSYNC_CHAOS_FULL !== '0';

/** A number from the environment (full runs: `npm run test:chaos`), else the short default. */
export function envNumber(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/** Seeded PRNG (mulberry32): a failing run can be repeated with LOCSYNC_CHAOS_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function chaosSeed(): number {
  return envNumber('LOCSYNC_CHAOS_SEED', Math.floor(Math.random() * 2 ** 31));
}

/** When a run is killed. */
export type KillPlan =
  /** `ms` after the run's first request reaches the service (or after spawn: `fromSpawn`). */
  | { kind: 'time'; ms: number; fromSpawn?: boolean }
  /** `ms` after the run's own log first shows `msg` (per process: fits several workers at once). */
  | { kind: 'after-log'; msg: string; ms: number }
  /** Right after the service answered the run's n-th upload / download (the client's recording window). */
  | { kind: 'after-upload'; n: number }
  | { kind: 'after-download'; n: number };

/** Kill moments that tell one worker from another (several workers at once). */
export type WorkerKillPlan = Extract<KillPlan, { kind: 'time' | 'after-log' }>;

export interface SyncRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  killed: boolean;
  /** What the last request the service finished before the kill was (upload, status, download, none). */
  lastRequest: string;
  summary?: SyncSummary;
  stderr: string;
}

export interface Unit {
  rel: string;
  lang: string;
}

export interface ChaosProject {
  dir: string;
  manifestPath: string;
  service: RunningService;
  targets: string[];
  /** Source files (relative to src/) written so far. */
  sources(): string[];
  /** sha256 of a source file's content (relative to src/). */
  shaOf(rel: string): string | undefined;
  /** Writes `count` new documents with unique content (txt and html); returns their paths. */
  addDocuments(count: number): string[];
  /** Copies every sample document (all supported formats) under src/samples/. */
  addSamples(): string[];
  runSync(kill?: KillPlan): Promise<SyncRun>;
  /**
   * Several `locsync sync` workers at once (a PostgreSQL state), each killed per its plan (only kills
   * timed from spawn or from the worker's own log: the service's log cannot tell workers apart).
   */
  runWorkers(kills: Array<WorkerKillPlan | undefined>): Promise<SyncRun[]>;
  /** Problems with the outputs: missing, wrong content, partial files left, unexpected files. */
  outputProblems(units?: Unit[]): Promise<string[]>;
  /** (sha256, target) uploaded (and accepted) more often than the pipeline reported a reason for. */
  unreportedDoubleUploads(extraReports?: Map<string, number>): Promise<string[]>;
  /** Re-uploads the state reports: lost downloads, and uploads whose answer a crash hid. */
  reportedReuploads(): Promise<{ lostDownloads: number; unconfirmedUploads: number }>;
  /** Accepted uploads in the request log. */
  acceptedUploads(): NonNullable<RequestLogEntry['upload']>[];
  units(): Unit[];
  close(): Promise<void>;
}

export interface ChaosOptions {
  targets?: string[];
  service?: ServiceOptions;
  manifest?: Record<string, unknown>;
  faults?: FaultSpec[];
  /** The state on PostgreSQL (this database URL) instead of state.db, with this lease. */
  postgres?: { url: string; leaseSeconds: number };
}

const keyOf = (sha: string, lang: string) => `${sha}:${lang.toUpperCase()}`;
/** Output extension of an input (the service answers .doc with .docx). */
const outputRel = (rel: string) => rel.replace(/\.doc$/i, '.docx');
const extOf = (rel: string) => path.extname(rel).slice(1).toLowerCase();

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() ? [path.join(e.parentPath, e.name)] : []));
}

/**
 * Same translated document: bytes for text and images; for Office packages every entry's content
 * (zip timestamps differ); for PDF the extracted pages (creation dates and compression differ).
 */
async function sameDocument(a: string, b: string): Promise<boolean> {
  const ext = extOf(a);
  if (['docx', 'pptx', 'xlsx'].includes(ext)) {
    const [x, y] = await Promise.all([readZip(a), readZip(b)]);
    return x.size === y.size && [...x].every(([name, data]) => y.get(name)?.equals(data));
  }
  if (ext === 'pdf') {
    const [x, y] = await Promise.all(
      [a, b].map(async (f) => JSON.stringify(await extractPdf(new Uint8Array(fs.readFileSync(f))))),
    );
    return x === y;
  }
  return fs.readFileSync(a).equals(fs.readFileSync(b));
}

type ReuploadColumns = Pick<JobRecord, 'sha256' | 'target_lang' | 'lost_downloads' | 'unconfirmed_uploads'>;

/** Every job's re-upload counts, from state.db or from the PostgreSQL state at `pgUrl`. */
async function jobsInState(dir: string, pgUrl: string | undefined): Promise<ReuploadColumns[]> {
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      return (
        await client.query<ReuploadColumns>(
          'SELECT sha256, target_lang, lost_downloads, unconfirmed_uploads FROM jobs',
        )
      ).rows;
    } finally {
      await client.end();
    }
  }
  const state = openState(path.join(dir, '.locsync', 'state.db'));
  try {
    return state.allJobs();
  } finally {
    state.close();
  }
}

export async function createChaosProject(opts: ChaosOptions = {}): Promise<ChaosProject> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-chaos-'));
  const targets = opts.targets ?? ['de', 'fr'];
  const service = await startService({
    authKey: KEY,
    dataDir: path.join(dir, 'service-data'),
    queueSeconds: 0,
    translateSeconds: 0.1,
    ...opts.service,
  });
  if (opts.faults?.length) service.addFaults(...opts.faults);
  const manifestPath = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(
    manifestPath,
    stringify({
      version: 1,
      service: {
        url: service.url,
        key_env: CHAOS_KEY_ENV,
        concurrency: 4,
        requests_per_second: 200,
        retry: { max_attempts: 6, max_wait: 20 },
      },
      max_attempts: 10,
      ...(opts.postgres
        ? { state: opts.postgres.url, postgres: { lease_seconds: opts.postgres.leaseSeconds } }
        : {}),
      mappings: [
        {
          name: 'docs',
          source: 'src',
          output: 'out/{lang}/{path}',
          targets: targets.map((lang) => ({ lang })),
        },
      ],
      ...opts.manifest,
    }),
  );
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  const sources = new Map<string, string>(); // rel -> sha256
  const write = (rel: string, content: Buffer | string) => {
    const abs = path.join(src, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
    sources.set(rel, createHash('sha256').update(content).digest('hex'));
  };
  let counter = 0;
  const engine = createEngine();
  const expectedDir = path.join(dir, 'expected');
  const expected = new Map<string, string>(); // rel\0lang -> file with the engine's translation
  const expectedOutput = async (rel: string, lang: string): Promise<string> => {
    const k = `${rel}\0${lang}`;
    const known = expected.get(k);
    if (known) return known;
    fs.mkdirSync(expectedDir, { recursive: true });
    const file = path.join(expectedDir, `${expected.size}${path.extname(outputRel(rel))}`);
    await engine.translateDocument(
      { path: path.join(src, rel), ext: extOf(rel), filename: path.basename(rel) },
      { path: file, ext: extOf(outputRel(rel)) },
      { targetLang: lang.toUpperCase() },
    );
    expected.set(k, file);
    return file;
  };
  /** Re-uploads the state reports per (sha256, target): lost downloads, uploads a crash left unconfirmed. */
  const reuploadsInState = async (): Promise<{
    lost: Map<string, number>;
    unconfirmed: Map<string, number>;
  }> => {
    const lost = new Map<string, number>();
    const unconfirmed = new Map<string, number>();
    const add = (m: Map<string, number>, k: string, n: number) => n > 0 && m.set(k, (m.get(k) ?? 0) + n);
    for (const j of await jobsInState(dir, opts.postgres?.url)) {
      add(lost, keyOf(j.sha256, j.target_lang), j.lost_downloads);
      add(unconfirmed, keyOf(j.sha256, j.target_lang), j.unconfirmed_uploads);
    }
    return { lost, unconfirmed };
  };
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const units = (): Unit[] => [...sources.keys()].flatMap((rel) => targets.map((lang) => ({ rel, lang })));

  const project: ChaosProject = {
    dir,
    manifestPath,
    service,
    targets,
    sources: () => [...sources.keys()],
    shaOf: (rel) => sources.get(rel),
    addDocuments(count) {
      const added: string[] = [];
      for (let i = 0; i < count; i++) {
        const n = ++counter;
        // Unique content per document, a few of them large enough to take a while to move.
        const body = `Document ${n}. The meeting starts at 3 PM. "Quoted" text ${n}.\n`.repeat(
          n % 7 === 0 ? 2000 : 1 + (n % 5),
        );
        const rel = n % 3 === 0 ? `d${n % 4}/doc-${n}.html` : `d${n % 4}/doc-${n}.txt`;
        write(rel, rel.endsWith('.html') ? `<html><body><p>${body}</p></body></html>\n` : body);
        added.push(rel);
      }
      return added;
    },
    addSamples() {
      const added: string[] = [];
      for (const abs of walk(SAMPLES)) {
        const name = path.basename(abs);
        if (/^(phrasebook\.|README)/.test(name)) continue;
        // report.doc would render to the same output as report.docx (a collision): its own folder.
        const sub = path.extname(name) === '.doc' ? 'legacy/' : '';
        const rel = `samples/${sub}${path.relative(SAMPLES, abs).split(path.sep).join('/')}`;
        write(rel, fs.readFileSync(abs));
        added.push(rel);
      }
      return added;
    },
    runSync: (kill) => runSyncChild(dir, manifestPath, service, kill),
    runWorkers: (kills) => Promise.all(kills.map((kill) => runSyncChild(dir, manifestPath, service, kill))),
    async outputProblems(only) {
      const problems: string[] = [];
      const wanted = only ?? units();
      const expectedPaths = new Set<string>();
      for (const { rel, lang } of wanted) {
        const out = path.join(dir, 'out', lang, outputRel(rel));
        expectedPaths.add(out);
        if (!fs.existsSync(out)) {
          problems.push(`missing output out/${lang}/${outputRel(rel)}`);
          continue;
        }
        if (!(await sameDocument(out, await expectedOutput(rel, lang))))
          problems.push(`wrong content in out/${lang}/${outputRel(rel)}`);
      }
      for (const f of walk(dir)) {
        if (f.startsWith(path.join(dir, 'service-data') + path.sep) || f.startsWith(expectedDir + path.sep))
          continue;
        if (f.endsWith(PART_SUFFIX)) problems.push(`partial file left: ${path.relative(dir, f)}`);
        else if (!only && f.startsWith(path.join(dir, 'out') + path.sep) && !expectedPaths.has(f))
          problems.push(`unexpected file: ${path.relative(dir, f)}`);
      }
      return problems;
    },
    reportedReuploads: async () => {
      const { lost, unconfirmed } = await reuploadsInState();
      return { lostDownloads: sum(lost), unconfirmedUploads: sum(unconfirmed) };
    },
    acceptedUploads: () =>
      service
        .requests()
        .filter(
          (r) =>
            r.method === 'POST' && r.path === UPLOAD_PATH && r.status >= 200 && r.status < 300 && r.upload,
        )
        .map((r) => r.upload!),
    async unreportedDoubleUploads(extra = new Map()) {
      const counts = new Map<string, { n: number; file: string }>();
      for (const u of project.acceptedUploads()) {
        const k = keyOf(u.sha256, u.target_lang);
        counts.set(k, { n: (counts.get(k)?.n ?? 0) + 1, file: u.filename });
      }
      const { lost, unconfirmed } = await reuploadsInState();
      const out: string[] = [];
      for (const [k, { n, file }] of counts) {
        if (n < 2) continue;
        const reported = (lost.get(k) ?? 0) + (unconfirmed.get(k) ?? 0) + (extra.get(k) ?? 0);
        if (n - 1 > reported)
          out.push(`${file} -> ${k.split(':')[1]}: uploaded ${n} times, ${reported} re-upload(s) reported`);
      }
      return out;
    },
    units,
    async close() {
      await service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return project;
}

/** The (sha256, target) keys of failures a rerun uploads again: documents the service failed, uploads maybe accepted. */
export function reportedFailures(
  summary: SyncSummary | undefined,
  shaOf: (file: string) => string | undefined,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of summary?.failed ?? []) {
    if (f.kind !== 'job-error' && f.kind !== 'maybe-accepted') continue;
    const sha = shaOf(f.file);
    if (!sha) continue;
    const k = keyOf(sha, f.target);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

function lastRequestKind(entries: RequestLogEntry[]): string {
  const last = entries.at(-1);
  if (!last) return 'none';
  if (last.method === 'POST' && last.path === UPLOAD_PATH) return 'upload';
  if (last.path.endsWith('/result')) return 'download';
  if (last.path.startsWith(`${UPLOAD_PATH}/`)) return 'status';
  return 'other';
}

/** `locsync sync --json` as a child process; killed with SIGKILL per `kill`. Logs go to a file. */
function runSyncChild(
  dir: string,
  manifestPath: string,
  service: RunningService,
  kill: KillPlan | undefined,
): Promise<SyncRun> {
  const logFile = path.join(dir, `.sync-${Date.now()}-${Math.random().toString(16).slice(2)}.log`);
  const logFd = fs.openSync(logFile, 'w');
  const mark = service.requests().length;
  const spawnedAt = Date.now();
  // Requests of this run: a killed run's last requests may still be finishing when the next starts.
  const ours = () =>
    service
      .requests()
      .slice(mark)
      .filter((r) => Date.parse(r.time) >= spawnedAt);
  const child = spawn(process.execPath, [...CLI_ARGS, 'sync', '-c', manifestPath, '--json'], {
    cwd: ROOT, // the manifest path is absolute
    env: {
      ...process.env,
      [CHAOS_KEY_ENV]: KEY,
      NO_COLOR: '1',
      LOCSYNC_LOG_LEVEL: 'info',
      LOCSYNC_POLL_INITIAL_MS: '50',
      LOCSYNC_POLL_MIN_MS: '20',
      LOCSYNC_POLL_MAX_MS: '300',
    },
    // stderr (the JSON log) to a file: written synchronously, kept whatever moment the kill lands.
    stdio: ['ignore', 'pipe', logFd],
  });
  fs.closeSync(logFd);
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  let killed = false;
  let lastRequest = 'none';
  const doKill = () => {
    if (killed || child.exitCode !== null) return;
    killed = true;
    lastRequest = lastRequestKind(ours());
    child.kill('SIGKILL');
  };
  let watcher: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (kill?.kind === 'time' && kill.fromSpawn) timer = setTimeout(doKill, kill.ms);
  else if (kill?.kind === 'after-log') {
    const needle = `"msg":"${kill.msg}"`;
    watcher = setInterval(() => {
      if (!fs.readFileSync(logFile, 'utf8').includes(needle)) return;
      clearInterval(watcher);
      timer = setTimeout(doKill, kill.ms);
    }, 20);
  } else if (kill) {
    watcher = setInterval(() => {
      const since = ours();
      if (kill.kind === 'time') {
        if (since.length > 0) {
          clearInterval(watcher);
          timer = setTimeout(doKill, kill.ms);
        }
        return;
      }
      const n = since.filter((r) =>
        kill.kind === 'after-upload'
          ? r.method === 'POST' && r.path === UPLOAD_PATH && r.status === 200
          : r.path.endsWith('/result') && r.status === 200,
      ).length;
      if (n >= kill.n) doKill();
    }, 2);
  }
  // Safety net: a run that hangs is killed and reported as such by the caller's checks.
  const hang = setTimeout(doKill, 120_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearInterval(watcher);
      clearTimeout(timer);
      clearTimeout(hang);
      const stderr = fs.readFileSync(logFile, 'utf8');
      fs.rmSync(logFile, { force: true });
      let summary: SyncSummary | undefined;
      try {
        summary = stdout.trim() ? (JSON.parse(stdout) as SyncSummary) : undefined;
      } catch {
        summary = undefined;
      }
      resolve({ code, signal, killed, lastRequest, stderr, ...(summary ? { summary } : {}) });
    });
  });
}

/**
 * What a user finds after the kills and a last run to the end: every output there with the right
 * content, no partial file, no document uploaded twice unless the state reports why, every unit
 * uploaded at least once (nothing silently skipped), and a run afterwards with nothing left to do.
 */
export async function expectCleanEnd(project: ChaosProject, context: string): Promise<void> {
  expect(await project.outputProblems(), context).toEqual([]);
  expect(await project.unreportedDoubleUploads(), context).toEqual([]);
  const uploaded = new Set(project.acceptedUploads().map((u) => `${u.sha256}:${u.target_lang}`));
  for (const { rel, lang } of project.units())
    expect(uploaded.has(`${project.shaOf(rel)}:${lang.toUpperCase()}`), `${rel} -> ${lang}`).toBe(true);
  const mark = project.service.requests().length;
  const again = await project.runSync();
  expect(again.code).toBe(0);
  expect(again.summary?.translated, context).toBe(0);
  expect(
    project.service
      .requests()
      .slice(mark)
      .filter((r) => r.path.startsWith('/v2/document')),
  ).toEqual([]);
}
