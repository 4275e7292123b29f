import fs from 'node:fs';
import type { LoadedManifest } from '../manifest/types.js';
import type { PostgresLocation } from '../state/location.js';
import { openState } from '../state/store.js';
import type { RunStopReason, SyncState } from '../state/types.js';
import { stopReasonOf } from '../sync/run-outcome.js';
import { EXIT } from '../util/errors.js';
import { claimOrClose } from './open-state.js';

// A run refused before it began (a budget cap, a drifted style list, a mistake in the options) is
// recorded like any run, failed with its reason, so that `status`, its --json and the status page
// say why the last run did nothing, and what to do. One refused because another locsync holds the
// state (a cron sync while watch runs) is recorded as skipped: the work is being done, the other
// process's runs are the outcome that counts.

/** The reason of a refusal by its exit code (RunRefused of the sync gate), else by the error. */
export function refusalReason(err: unknown): RunStopReason {
  const code = (err as { exitCode?: unknown }).exitCode;
  if ((err as Error).name === 'RunRefused')
    return code === EXIT.budget ? 'budget' : code === EXIT.locked ? 'lock' : 'config';
  return stopReasonOf(err);
}

/** Record a refused run of `command` in an open state. */
export async function recordRefused(
  state: Pick<SyncState, 'runs'>,
  command: string,
  err: unknown,
): Promise<void> {
  const id = await state.runs.start(command);
  const reason = refusalReason(err);
  await state.runs.finish(id, { status: reason === 'lock' ? 'skipped' : 'failed', reason }, {}, 0);
}

/**
 * Record a refused run of `command` in the pipeline's state (when there is one: a first run
 * refused creates none). Never throws: the refusal itself is what the user must see.
 */
export async function recordRefusedRun(
  loaded: Pick<LoadedManifest, 'statePath' | 'postgres' | 'pipeline'>,
  command: string,
  err: unknown,
): Promise<void> {
  try {
    if (loaded.postgres) await recordRefusedInPostgres(loaded.postgres, command, err);
    else await recordRefusedInSqlite(loaded, command, err);
  } catch {
    // A state that cannot be opened (damaged, another version) or that belongs to another pipeline
    // (never written by this one) is reported by the command itself.
  }
}

async function recordRefusedInSqlite(
  loaded: Pick<LoadedManifest, 'statePath' | 'pipeline'>,
  command: string,
  err: unknown,
): Promise<void> {
  if (!fs.existsSync(loaded.statePath)) return;
  // Not locked: a refusal for a held lock is recorded too (SQLite serialises the two writers).
  const state = openState(loaded.statePath);
  claimOrClose(state, loaded, false);
  try {
    await recordRefused(state, command, err);
  } finally {
    state.close();
  }
}

async function recordRefusedInPostgres(
  location: PostgresLocation,
  command: string,
  err: unknown,
): Promise<void> {
  // Loaded only here: a single machine's commands never load the PostgreSQL client.
  const [{ PostgresState }, { isSetupError, isUnreachable }, { schemaVersion }] = await Promise.all([
    import('../state/postgres/store.js'),
    import('../state/postgres/connect.js'),
    import('../state/postgres/migrate.js'),
  ]);
  // A server that could not be reached, or refused the role, is not asked again.
  const cause = (err as Error).cause ?? err;
  if (isUnreachable(cause) || isSetupError(cause)) return;
  // Not migrated and no worker: a refusal leaves no schema behind and holds no work.
  const state = await PostgresState.open(location, { migrate: false, connections: 1 });
  try {
    if ((await schemaVersion(state.pool)) > 0) await recordRefused(state, command, err);
  } finally {
    await state.close();
  }
}
