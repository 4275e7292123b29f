import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import { openLockedState } from '../state/lock.js';
import { claimSqlitePipeline } from '../state/sqlite/pipeline.js';
import { openState, type StateStore } from '../state/store.js';
import { sqliteStatusSource, type StatusSource } from '../report/status-source.js';
import type { RunState } from '../sync/engine.js';

// The state a command works with, on either backend: a SQLite file on this machine (locked while a
// command drives it), or a PostgreSQL database shared by several workers (no lock: the workers'
// rules share the work; a command that drives work registers as a worker and beats).

export interface OpenedState {
  state: RunState;
  /** The SQLite store (backups, its direct queries); absent on PostgreSQL. */
  sqlite: StateStore | undefined;
  /** Where the state lives, for messages (the file, or the URL without password). */
  location: string;
  /** The state as status reads it (runs, jobs, billing). */
  status: StatusSource;
  close(): Promise<void>;
}

export interface OpenStateOptions {
  logger: Logger;
  /** The command, for the lock and the workers table. */
  command: string;
  /** The command drives work (sync, watch): SQLite locked, PostgreSQL registered as a worker. */
  drives: boolean;
}

/**
 * A SQLite state of another pipeline is refused (closed); one of no pipeline yet is adopted by a
 * command that drives work (src/state/pipeline.ts).
 */
export function claimOrClose(
  state: StateStore,
  loaded: Pick<LoadedManifest, 'statePath' | 'pipeline'>,
  adopt: boolean,
): void {
  if (!loaded.pipeline) return;
  try {
    claimSqlitePipeline(state.db, loaded.statePath, loaded.pipeline, adopt);
  } catch (err) {
    state.close();
    throw err;
  }
}

export async function openRunState(loaded: LoadedManifest, opts: OpenStateOptions): Promise<OpenedState> {
  const pgLoc = loaded.postgres;
  if (!pgLoc) {
    if (!opts.drives) {
      const state = openState(loaded.statePath);
      claimOrClose(state, loaded, false);
      return {
        state,
        sqlite: state,
        location: loaded.statePath,
        status: sqliteStatusSource(state),
        close: async () => state.close(),
      };
    }
    const { state, lock } = openLockedState(loaded.statePath, opts);
    try {
      claimOrClose(state, loaded, true);
    } catch (err) {
      lock.release();
      throw err;
    }
    return {
      state,
      sqlite: state,
      location: loaded.statePath,
      status: sqliteStatusSource(state),
      close: async () => {
        lock.release();
        state.close();
      },
    };
  }
  // Loaded only here: a single machine's commands never load the PostgreSQL client.
  const [{ PostgresState }, { postgresStatusSource }] = await Promise.all([
    import('../state/postgres/store.js'),
    import('../report/postgres-status-source.js'),
  ]);
  const svc = loaded.manifest.service;
  const state = await PostgresState.open(pgLoc, {
    logger: opts.logger,
    // Places and tokens are rows: a worker's uploads, polls and beats each need a connection.
    connections: Math.max(4, svc.concurrency + 4),
    ...(opts.drives ? { worker: { command: opts.command, leaseSeconds: pgLoc.leaseSeconds } } : {}),
  });
  return {
    state,
    sqlite: undefined,
    location: state.location,
    status: postgresStatusSource(state),
    close: () => state.close(),
  };
}
