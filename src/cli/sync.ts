import path from 'node:path';
import { AuthError } from '../api/errors.js';
import { createLogger, type Logger } from '../log/logger.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { openLockedState } from '../state/lock.js';
import { runSync } from '../sync/engine.js';
import { createSyncEvents } from '../sync/events.js';
import { formatSummary, type SyncSummary } from '../sync/summary.js';
import type { SyncConnection } from '../sync/session.js';
import { ConfigError, EXIT } from '../util/errors.js';
import { progressWanted } from './context.js';
import { startRunView } from './progress.js';

interface SyncCliOptions {
  config: string;
  dryRun?: boolean;
  only?: string[];
  retranslate?: string;
  json?: boolean;
}

type OpenConnection = (
  loaded: LoadedManifest,
  opts: { logger?: Logger; stateDir: string },
) => Promise<SyncConnection & { close(): Promise<void> }>;

async function openConnectionFn(): Promise<OpenConnection> {
  const spec = '../api/connect.js';
  return ((await import(spec)) as { openConnection: OpenConnection }).openConnection;
}

export async function syncAction(opts: SyncCliOptions): Promise<void> {
  process.exitCode = await syncCommand(opts);
}

export async function syncCommand(opts: SyncCliOptions): Promise<number> {
  if (opts.retranslate !== undefined && opts.retranslate !== 'stale')
    throw new ConfigError(`--retranslate accepts only "stale" (got "${opts.retranslate}")`);
  const loaded = await loadManifest(opts.config);
  const names = loaded.manifest.mappings.map((m) => m.name);
  const unknown = (opts.only ?? []).filter((n) => !names.includes(n));
  if (unknown.length)
    throw new ConfigError(
      `--only: no mapping named ${unknown.join(', ')} in ${loaded.path} (mappings: ${names.join(', ')})`,
    );

  const logger = createLogger();
  const { state, lock } = openLockedState(loaded.statePath, { logger, command: 'sync' });
  const abort = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(
        `locsync: ${sig} again: exiting now; recorded uploads are collected by the next run\n`,
      );
      process.exit(130);
    }
    logger.warn(`${sig}: finishing documents in flight, no new uploads (press again to exit now)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const events = createSyncEvents();
  const view = startRunView({ events, logger, configPath: opts.config, progress: progressWanted() });
  let summary: SyncSummary | undefined;
  let code: number = EXIT.ok;
  let connection: Awaited<ReturnType<OpenConnection>> | undefined;
  try {
    connection = await (
      await openConnectionFn()
    )(loaded, { logger, stateDir: path.dirname(loaded.statePath) });
    summary = await runSync({
      loaded,
      connection,
      state,
      logger,
      events,
      options: {
        dryRun: !!opts.dryRun,
        ...(opts.only ? { only: opts.only } : {}),
        ...(opts.retranslate === 'stale' ? { retranslate: 'stale' as const } : {}),
        signal: abort.signal,
        stopDeadlineMs: loaded.manifest.watch.shutdown * 1000,
      },
    });
    code = summary.failed.length > 0 ? EXIT.failed : EXIT.ok;
  } catch (err) {
    summary = (err as { summary?: SyncSummary }).summary;
    if (err instanceof AuthError && summary) {
      process.stderr.write(
        `locsync: the service refused the API key (${err.message}); check $${loaded.manifest.service.key_env}\n`,
      );
      code = EXIT.usage;
    } else {
      throw err;
    }
  } finally {
    view.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await connection?.close().catch(() => undefined);
    lock.release();
    state.close();
  }
  if (summary) {
    if (opts.json) process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else process.stdout.write(formatSummary(summary) + '\n');
  }
  return code;
}
