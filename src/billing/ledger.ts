import type { StateStore } from '../state/store.js';

// The state's own ledger of billed characters: what the service billed, as recorded per job when
// the document was done (billed_characters). The monthly budget is counted from it.

/** First instant of the calendar month (UTC) holding `at`, as the ISO string the jobs table stores. */
export function monthStart(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)).toISOString();
}

/**
 * Characters billed since `since` (ISO): every job with a billed count recorded then, finished or
 * still downloading (the service bills a document once it is translated, before it is fetched).
 */
export function billedCharactersSince(state: StateStore, since: string): number {
  const row = state.db
    .prepare<[string], { billed: number | null }>(
      `SELECT SUM(billed_characters) AS billed FROM jobs
       WHERE billed_characters IS NOT NULL AND COALESCE(finished_at, updated_at) >= ?`,
    )
    .get(since);
  return row?.billed ?? 0;
}

/** Characters billed in the calendar month (UTC) of `at`. */
export function billedThisMonth(state: StateStore, at = new Date()): number {
  return billedCharactersSince(state, monthStart(at));
}
