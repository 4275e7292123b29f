import fs from 'node:fs';
import { openState } from '../state/store.js';
import type { RunStopReason, SyncState } from '../state/types.js';
import { stopReasonOf } from '../sync/run-outcome.js';
import { EXIT } from '../util/errors.js';

// A run refused before it began (another process holds the state, a budget cap, a drifted style
// list, a mistake in the options) is recorded like any run, failed with its reason, so that
// `status`, its --json and the status page say why the last run did nothing, and what to do.

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
  await state.runs.finish(id, { status: 'failed', reason: refusalReason(err) }, {}, 0);
}

/**
 * Record a refused run of `command` in the state at `statePath` (when there is one: a first run
 * refused creates none). Never throws: the refusal itself is what the user must see.
 */
export async function recordRefusedRun(statePath: string, command: string, err: unknown): Promise<void> {
  if (!fs.existsSync(statePath)) return;
  try {
    // Not locked: a refusal for a held lock is recorded too (SQLite serialises the two writers).
    const state = openState(statePath);
    try {
      await recordRefused(state, command, err);
    } finally {
      state.close();
    }
  } catch {
    // A state that cannot be opened (damaged, another version) is reported by the command itself.
  }
}
