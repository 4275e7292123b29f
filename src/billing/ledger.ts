import type { SyncState } from '../state/types.js';

// The state's own ledger of billed characters: what the service billed, as recorded per job when
// the document was done (billed_characters). The monthly budget is counted from it.

/** First instant of the calendar month (UTC) holding `at`, as the ISO string the jobs table stores. */
export function monthStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString();
}

/** Characters billed in the calendar month (UTC) of `at`, by every worker of the pipeline. */
export function billedThisMonth(state: Pick<SyncState, 'jobs'>, at = new Date()): Promise<number> {
  return state.jobs.billedSince(monthStart(at));
}
