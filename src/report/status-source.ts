import { pidAlive } from '../state/lock.js';
import {
  ledgerOfRunSql,
  ledgerRows,
  outputsOfRun,
  outputsOfRunSql,
  soFarOfBill,
  withRunsSoFar,
  type LedgerRow,
  type RunSoFar,
} from './run-so-far.js';
import type { JobRecord, RunRecord, StateStore } from '../state/store.js';
import {
  billingReport,
  failedJobs,
  jobsInFlight,
  repeatedUploads,
  type BillingReport,
  type InFlightJob,
  type ReportBy,
  type RepeatedUpload,
} from './queries.js';

// What `status` and the status page read from a state, on either backend: the SQLite store answers
// from state.db on this machine, a PostgreSQL state from the database every worker shares
// (./postgres-status-source.ts). Reads only: nothing here changes the state.

export interface StatusSource {
  /** Where the state lives (the file, or the URL without password). */
  readonly location: string;
  /**
   * Most recent runs first; a run left running by a process that is gone shows as crashed, one
   * still going with what it billed and made so far (./run-so-far.ts).
   */
  recentRuns(limit: number): Promise<RunRecord[]>;
  /**
   * The runs that ran (a run skipped for the lock did not), most recent first, down to the newest
   * finished one: the last outcome, however many skipped runs came after it.
   */
  lastRanRuns(): Promise<RunRecord[]>;
  /** Uploads started and not finished (a segment job's text requests counted). */
  jobsInFlight(): Promise<InFlightJob[]>;
  /** Jobs whose last attempt failed and whose output was not made since. */
  failedJobs(): Promise<JobRecord[]>;
  /** Characters billed since `since` (ISO). */
  billedSince(since: string): Promise<number>;
  /** Documents uploaded again after a possibly billed upload. */
  repeatedUploads(): Promise<RepeatedUpload[]>;
  /** Billed characters of the done jobs finished since `since`, grouped. */
  billing(opts: { by: ReportBy; since: string }): Promise<BillingReport>;
  /** What one run billed, uploaded and sent, by mapping and target language (the ledger's). */
  ledgerOfRun(runId: number): Promise<LedgerRow[]>;
}

/** A run left 'running' by a process that is gone crashed (the next run records it so too). */
function withCrashed(r: RunRecord): RunRecord {
  return r.status === 'running' && !pidAlive(r.pid) ? { ...r, status: 'crashed' } : r;
}

/** The runs of `ran` (most recent first) down to the newest finished one. */
function downToFinished(ran: Iterable<RunRecord>): RunRecord[] {
  const out: RunRecord[] = [];
  for (const r of ran) {
    const run = withCrashed(r);
    out.push(run);
    if (run.status !== 'running') break;
  }
  return out;
}

export function sqliteStatusSource(state: StateStore): StatusSource {
  const soFar = async (runId: number): Promise<RunSoFar> => ({
    ...soFarOfBill(state.jobRows.billedOfRun(runId)),
    ...outputsOfRun(
      state.db
        .prepare<[{ run: number }], Record<string, unknown>>(outputsOfRunSql('@run'))
        .get({ run: runId }),
    ),
  });
  return {
    location: state.location,
    recentRuns: async (limit) => withRunsSoFar(state.recentRuns(limit).map(withCrashed), soFar),
    lastRanRuns: async () => withRunsSoFar(downToFinished(state.ranRuns()), soFar),
    jobsInFlight: async () => jobsInFlight(state),
    failedJobs: async () => failedJobs(state),
    billedSince: async (since) => state.billedSince(since),
    repeatedUploads: async () => repeatedUploads(state),
    billing: async (opts) => billingReport(state, opts),
    ledgerOfRun: async (runId) =>
      ledgerRows(
        state.db
          .prepare<[{ run: number }], Record<string, unknown>>(ledgerOfRunSql('@run'))
          .all({ run: runId }),
      ),
  };
}
