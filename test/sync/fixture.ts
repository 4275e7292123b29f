import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ServiceClient } from '../../src/api/client.js';
import { silentLogger } from '../../src/log/logger.js';
import { loadManifest, type LoadedManifest } from '../../src/manifest/load.js';
import { startService } from '../../src/local-service/index.js';
import type { RequestLogEntry, RunningService, ServiceOptions } from '../../src/local-service/types.js';
import { openRunState } from '../../src/cli/open-state.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { makePlan, runSync, type RunState, type SyncOptions } from '../../src/sync/engine.js';
import { createSyncEvents, type SyncEvents } from '../../src/sync/events.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import { summaryOfPlan } from '../../src/sync/plan/view.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDatabase, PG_SKIP_NOTICE, pgForTests, type TestDatabase } from '../helpers/postgres.js';

// A sync playground: a temp folder with a manifest and sources, the local service on 127.0.0.1
// port 0, a real state. Runs the engine in-process with short poll intervals.
//
// The state is a state.db, or with LOCSYNC_TEST_BACKEND=postgres (the "sync on postgres" project of
// vitest.config.ts) a PostgreSQL database of the fixture's own: the sync suite runs on both backends.
// A test that reads state.db itself (fx.openState(), the file's mode, its lock) is SQLite's alone:
// `it.skipIf(onPostgres)`.

/** The sync suite runs on PostgreSQL in this process. */
export const onPostgres = process.env.LOCSYNC_TEST_BACKEND === 'postgres';

export const FAST_POLL = { initialMs: 30, minMs: 10, maxMs: 150 };
export const API_KEY = 'test-key-for-sync-0001';

export interface Fixture {
  dir: string;
  src: string;
  service: RunningService;
  manifestPath: string;
  write(rel: string, content: string | Buffer): void;
  read(rel: string): string;
  exists(rel: string): boolean;
  /** `dryRun`: the plan only, summarised as `sync --dry-run` does. */
  sync(
    opts?: SyncOptions & {
      client?: DocumentClient;
      events?: SyncEvents;
      edit?: (l: LoadedManifest) => void;
      dryRun?: boolean;
    },
  ): Promise<SyncSummary>;
  load(): Promise<LoadedManifest>;
  /** The state.db itself (SQLite only). */
  openState(): StateStore;
  /** The state through the interface the engine drives, on either backend (a worker on PostgreSQL). */
  open(): Promise<{ state: RunState; close(): Promise<void> }>;
  uploads(since?: number): NonNullable<RequestLogEntry['upload']>[];
  /** Requests to document endpoints since log position `since`. */
  documentRequests(since?: number): RequestLogEntry[];
  mark(): number;
  client(): ServiceClient;
  close(): Promise<void>;
}

export interface FixtureOptions {
  manifest?: Record<string, unknown>;
  service?: ServiceOptions;
  files?: Record<string, string | Buffer>;
}

/**
 * The PostgreSQL state of the fixture made last (tests make one fixture at a time): manifests
 * rewritten from defaultManifest keep pointing at it.
 */
let postgresState: string | undefined;

export function defaultManifest(url: string): Record<string, unknown> {
  return {
    version: 1,
    ...(postgresState ? { state: postgresState } : {}),
    service: {
      url,
      key_env: 'LOCSYNC_TEST_SYNC_KEY',
      concurrency: 4,
      requests_per_second: 1000,
      retry: { max_attempts: 4, max_wait: 5 },
    },
    max_attempts: 3,
    mappings: [
      {
        name: 'docs',
        source: 'src',
        output: 'out/{lang}/{path}',
        targets: [{ lang: 'de' }, { lang: 'fr' }],
      },
    ],
  };
}

export async function createFixture(opts: FixtureOptions = {}): Promise<Fixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-sync-'));
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  const service = await startService({
    queueSeconds: 0,
    translateSeconds: 0.05,
    authKey: API_KEY,
    ...opts.service,
  });
  let db: TestDatabase | undefined;
  if (onPostgres) {
    const server = await pgForTests();
    if (!server) throw new Error(PG_SKIP_NOTICE);
    db = await createTestDatabase(server);
    postgresState = db.url;
  }
  const manifest = { ...defaultManifest(service.url), ...opts.manifest };
  const manifestPath = path.join(dir, 'pipeline.yaml');
  fs.writeFileSync(manifestPath, stringify(manifest));
  const write = (rel: string, content: string | Buffer) => {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  };
  for (const [rel, content] of Object.entries(opts.files ?? {})) write(path.join('src', rel), content);
  const clients: ServiceClient[] = [];
  const client = () => {
    const c = new ServiceClient({
      baseUrl: service.url,
      apiKey: API_KEY,
      retry: { maxAttempts: 6, maxWaitMs: 5000, baseDelayMs: 5, maxDelayMs: 50 },
      rateLimit: { requestsPerSecond: 1000, concurrency: 16 },
    });
    clients.push(c);
    return c;
  };
  const fx: Fixture = {
    dir,
    src,
    service,
    manifestPath,
    write,
    read: (rel) => fs.readFileSync(path.join(dir, rel), 'utf8'),
    exists: (rel) => fs.existsSync(path.join(dir, rel)),
    load: () => loadManifest(manifestPath),
    openState: () => {
      if (onPostgres) throw new Error('fx.openState() reads state.db: mark the test it.skipIf(onPostgres)');
      return openState(path.join(dir, '.locsync', 'state.db'));
    },
    async open() {
      const loaded = await fx.load();
      if (onPostgres) return openRunState(loaded, { logger: silentLogger(), command: 'sync', drives: true });
      const state = openState(loaded.statePath);
      return { state, close: async () => state.close() };
    },
    async sync(o = {}) {
      const loaded = await fx.load();
      o.edit?.(loaded);
      // On PostgreSQL each sync is a worker of its own, as `locsync sync` would be.
      const opened = onPostgres
        ? await openRunState(loaded, { logger: silentLogger(), command: 'sync', drives: true })
        : undefined;
      const state = opened?.state ?? openState(loaded.statePath);
      try {
        const { client: c, events, edit: _edit, dryRun, ...options } = o;
        if (dryRun) {
          const { plan } = await makePlan({ loaded, connection: { client: c ?? client() }, state, options });
          return summaryOfPlan(plan, 0);
        }
        return await runSync({
          loaded,
          connection: { client: c ?? client() },
          state,
          logger: silentLogger(),
          events: events ?? createSyncEvents(),
          options: { poll: FAST_POLL, ...options },
        });
      } finally {
        if (opened) await opened.close();
        else (state as StateStore).close();
      }
    },
    mark: () => service.requests().length,
    uploads: (since = 0) =>
      service
        .requests()
        .slice(since)
        .filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload && r.status < 300)
        .map((r) => r.upload!),
    documentRequests: (since = 0) =>
      service
        .requests()
        .slice(since)
        .filter((r) => r.path.startsWith('/v2/document')),
    client,
    async close() {
      await service.close();
      await db?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return fx;
}

/** The documents uploaded since log position `mark`, as "file:TARGET", sorted. */
export function uploadedUnits(f: Fixture, mark: number): string[] {
  return f
    .uploads(mark)
    .map((u) => `${u.filename}:${u.target_lang}`)
    .sort();
}

/** Every (file, target) of a summary that failed, as "file -> target". */
export function failedUnits(s: SyncSummary): string[] {
  return s.failed.map((f) => `${f.file} -> ${f.target}`).sort();
}

/** Runs the locsync CLI as a user would on the fixture: its manifest, its folder, its service key. */
export function runCliOn(f: Fixture, ...args: string[]): Promise<CliResult> {
  return runCli([...args, '-c', f.manifestPath], { env: { LOCSYNC_TEST_SYNC_KEY: API_KEY }, cwd: f.dir });
}

/**
 * Manifest parts with a style list `house` (German, the given time format) on the de target of
 * mapping docs; fr has none. Writing it again with another time format changes the list.
 */
export function houseStyleManifest(timeFormat: string): Record<string, unknown> {
  return {
    style_lists: {
      house: { language: 'de', configured_rules: { dates_and_times: { time_format: timeFormat } } },
    },
    mappings: [
      {
        name: 'docs',
        source: 'src',
        output: 'out/{lang}/{path}',
        targets: [{ lang: 'de', style: 'house' }, { lang: 'fr' }],
      },
    ],
  };
}

/** Rewrite the fixture's manifest with houseStyleManifest(timeFormat). */
export function setHouseStyle(f: Fixture, timeFormat: string): void {
  fs.writeFileSync(
    f.manifestPath,
    stringify({ ...defaultManifest(f.service.url), ...houseStyleManifest(timeFormat) }),
  );
}

/** A mapping `name` of the folder src/<name> into out/<name>/{lang}/{path}, from English. */
export function folderMapping(
  name: string,
  targets: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    source: `src/${name}`,
    source_lang: 'en',
    output: `out/${name}/{lang}/{path}`,
    targets: targets.map((lang) => ({ lang })),
    ...extra,
  };
}
