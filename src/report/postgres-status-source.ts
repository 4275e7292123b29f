import type { PostgresState } from '../state/postgres/store.js';
import type { JobRecord } from '../state/types.js';
import { postgresReportRows } from './postgres-rows.js';
import {
  billingReport,
  FAILED_JOBS_SQL,
  isReportedFailure,
  JOBS_IN_FLIGHT_SQL,
  repeatedUploads,
  type InFlightJob,
} from './queries.js';
import {
  ledgerOfRunSql,
  ledgerRows,
  outputsOfRun,
  outputsOfRunSql,
  soFarOfBill,
  withRunsSoFar,
  type RunSoFar,
} from './run-so-far.js';
import type { StatusSource } from './status-source.js';

// What `status` and the status page read from a PostgreSQL state: the same rows as from state.db,
// read from the database every worker shares.

export function postgresStatusSource(
  state: Pick<PostgresState, 'pool' | 'location' | 'runs' | 'jobs'>,
): StatusSource {
  const { pool } = state;
  const soFar = async (runId: number): Promise<RunSoFar> => ({
    ...soFarOfBill(await state.jobs.billedOfRun(runId)),
    ...outputsOfRun((await pool.query(outputsOfRunSql('$1::bigint'), [runId])).rows[0]),
  });
  return {
    location: state.location,
    recentRuns: async (limit) => withRunsSoFar(await state.runs.recent(limit), soFar),
    lastRanRuns: async () => withRunsSoFar(await state.runs.lastRan(), soFar),
    jobsInFlight: async () => (await pool.query<InFlightJob>(JOBS_IN_FLIGHT_SQL)).rows,
    failedJobs: async () => (await pool.query<JobRecord>(FAILED_JOBS_SQL)).rows.filter(isReportedFailure),
    billedSince: (since) => state.jobs.billedSince(since),
    repeatedUploads: async () => repeatedUploads(await postgresReportRows(pool, undefined, ['repeatedJobs'])),
    billing: async (opts) =>
      billingReport(
        await postgresReportRows(pool, opts.since, ['doneJobs', 'unfinishedSegments', 'charges']),
        opts,
      ),
    ledgerOfRun: async (runId) => ledgerRows((await pool.query(ledgerOfRunSql('$1::bigint'), [runId])).rows),
  };
}
