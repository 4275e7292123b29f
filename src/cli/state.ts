import path from 'node:path';
import type pg from 'pg';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { createPool, describeConnectError, isSetupError, isUnreachable } from '../state/postgres/connect.js';
import { migrate } from '../state/postgres/migrate.js';
import { claimPgPipeline } from '../state/postgres/pipeline.js';
import { claimSqlitePipeline } from '../state/sqlite/pipeline.js';
import { displayUrl } from '../state/postgres/url.js';
import { openState, SCHEMA_VERSION } from '../state/store.js';
import { exportToSqlite, importFromSqlite, type TransferCounts } from '../state/transfer.js';
import { ConfigError, EXIT } from '../util/errors.js';

// `locsync state …`: the state's schema, and moving a pipeline between backends.

interface StateOptions {
  config: string;
  json?: boolean;
}

/**
 * Run `fn` with a pool on the manifest's PostgreSQL state (schema brought up to date first).
 * An unreachable server or a refused password: the URL (without password) and the cause, exit 1.
 */
async function withPostgres<T>(
  loaded: LoadedManifest,
  fn: (pool: pg.Pool, url: string, migrated: { from: number; to: number }) => Promise<T>,
): Promise<T | undefined> {
  const pgLoc = loaded.postgres!;
  const { url } = pgLoc;
  const pool = createPool(pgLoc, { max: 2 });
  try {
    const migrated = await migrate(pool, url);
    if (pgLoc.pipeline) await claimPgPipeline(pool, url, pgLoc.pipeline, true);
    return await fn(pool, url, migrated);
  } catch (err) {
    if (!isUnreachable(err) && !isSetupError(err)) throw err;
    process.stderr.write(describeConnectError(url, err) + '\n');
    process.exitCode = EXIT.failed;
    return undefined;
  } finally {
    await pool.end();
  }
}

function requirePostgres(loaded: LoadedManifest, what: string): void {
  if (!loaded.postgres)
    throw new ConfigError(
      `${loaded.path}: ${what} works on a PostgreSQL state (state: postgres://…); this manifest's state is the SQLite file ${loaded.statePath}`,
    );
}

/**
 * `locsync state migrate`: create or update the state's schema (sync and watch do it too, under the
 * same advisory lock; this lets an operator do it ahead, with a role that may create tables).
 */
export async function stateMigrateAction(opts: StateOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  const result = loaded.postgres
    ? await withPostgres(loaded, async (_pool, url, r) => ({
        backend: 'postgres',
        state: displayUrl(url),
        ...r,
      }))
    : (() => {
        // The SQLite state applies its migrations when it is opened.
        const state = openState(loaded.statePath);
        try {
          if (loaded.pipeline) claimSqlitePipeline(state.db, loaded.statePath, loaded.pipeline, true);
        } finally {
          state.close();
        }
        return { backend: 'sqlite', state: loaded.statePath, from: null, to: SCHEMA_VERSION };
      })();
  if (!result) return;
  if (opts.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else if (result.from === result.to)
    process.stdout.write(`${result.state}: schema is up to date (version ${result.to})\n`);
  else
    process.stdout.write(
      `${result.state}: schema ${result.from === null ? 'at' : `migrated from version ${result.from} to`} version ${result.to}\n`,
    );
  process.exitCode = EXIT.ok;
}

function printCounts(verb: string, from: string, to: string, counts: TransferCounts, json?: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify({ from, to, ...counts }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `${verb} ${from} -> ${to}: ${counts.jobs} jobs, ${counts.files} files, ${counts.runs} runs, ` +
      `${counts.style_lists} style lists, ${counts.snapshots} snapshots\n`,
  );
}

/** `locsync state export --to sqlite FILE`: the PostgreSQL state into a new SQLite state file. */
export async function stateExportAction(file: string, opts: StateOptions & { to: string }): Promise<void> {
  if (opts.to !== 'sqlite') throw new ConfigError(`state export: --to ${opts.to}: only sqlite is supported`);
  const loaded = await loadManifest(opts.config);
  requirePostgres(loaded, 'state export');
  const target = path.resolve(file);
  const done = await withPostgres(loaded, async (pool, url) => {
    printCounts('exported', displayUrl(url), target, await exportToSqlite(pool, target), opts.json);
    return true;
  });
  if (done) process.exitCode = EXIT.ok;
}

/** `locsync state import FILE`: a SQLite state file into the (empty) PostgreSQL state. */
export async function stateImportAction(file: string, opts: StateOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  requirePostgres(loaded, 'state import');
  const source = path.resolve(file);
  const done = await withPostgres(loaded, async (pool, url) => {
    printCounts('imported', source, displayUrl(url), await importFromSqlite(pool, source), opts.json);
    return true;
  });
  if (done) process.exitCode = EXIT.ok;
}
