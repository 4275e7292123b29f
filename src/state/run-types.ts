// The run log: one record per sync or watch, how it ended and why.
// Part of the state interface (./types.ts).

export interface RunRecord {
  id: number;
  started_at: string;
  finished_at: string | null;
  command: string;
  status: RunStatus;
  pid: number;
  counts: Record<string, number> | null;
  billed_characters: number;
  /** Why the run stopped early or failed (see RunStopReason); null when it completed. */
  reason: RunStopReason | null;
}

/** How a run ended, and why when it did not complete (status, report). */
/** skipped: refused before it began because another locsync held the state (not an outcome). */
/** stopped: a watch ended by SIGINT/SIGTERM, its normal end (a sync so ended is interrupted). */
export type RunStatus = 'running' | 'ok' | 'failed' | 'interrupted' | 'stopped' | 'crashed' | 'skipped';

/** Why a run stopped before its work was done (none: it completed). Interrupted is not failed. */
export type RunStopReason =
  | 'documents-failed' // the run went through; some documents failed
  | 'source-missing' // a mapping's source folder is not there (or empty where files were)
  | 'drift' // a style list was changed on the service by someone else
  | 'auth' // the service refused the API key
  | 'quota' // the account's character quota is used up
  | 'budget' // the plan would exceed the budget
  | 'lock' // another process holds the state
  | 'signal' // stopped by SIGINT/SIGTERM (interrupted)
  | 'config' // the manifest or the options are wrong
  | 'internal'; // an unexpected error

export interface RunOutcome {
  status: Exclude<RunStatus, 'running' | 'crashed'>;
  reason?: RunStopReason;
}

export interface RunLog {
  /** Record a run; runs left running by a process that died are marked crashed. */
  start(command: string): Promise<number>;
  finish(id: number, outcome: RunOutcome, counts: Record<string, number>, billed: number): Promise<void>;
}
