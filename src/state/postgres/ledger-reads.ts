import type pg from 'pg';
import { billedOfRunSql, billedSinceSql, pgStatement, runBillOf } from '../billed.js';
import type { JobRecord, JobSincePlan, RunBill } from '../job-types.js';
import { sincePlanStatement } from '../since-plan.js';

// Reads of the job ledger on PostgreSQL that any reader makes alike (./ledger.ts answers them from
// here): what was billed (../billed.ts), and the check before a billed call (../since-plan.ts) with
// the database's clock, which stamps every job write (updated_at = now()).

/**
 * How long before its commit a write may be stamped, at most: updated_at is its transaction's start,
 * so a job that commits after the horizon may carry an earlier stamp.
 */
const STAMP_BEFORE_COMMIT_MS = 5000;

/** The database's clock now (JobLedger.horizon). */
export async function pgHorizon(db: pg.Pool): Promise<string> {
  const r = await db.query<{ at: string }>('SELECT clock_timestamp() AS at');
  return (r.rows[0] as { at: string }).at;
}

/** Another run's job of `job`'s output and unit written since `since` (JobLedger.sincePlan). */
export async function pgSincePlan(
  db: pg.Pool,
  job: JobRecord,
  runId: number,
  since: string,
): Promise<JobSincePlan | undefined> {
  const { sql, values } = pgStatement(sincePlanStatement(job, runId, since, STAMP_BEFORE_COMMIT_MS));
  return (await db.query<JobSincePlan>(sql, values)).rows[0];
}

/** Characters billed since `since` (JobLedger.billedSince). */
export async function pgBilledSince(db: pg.Pool, since: string): Promise<number> {
  const r = await db.query<{ billed: number | null }>(billedSinceSql('$1::timestamptz'), [since]);
  return r.rows[0]?.billed ?? 0;
}

/** What run `runId` billed (JobLedger.billedOfRun). */
export async function pgBilledOfRun(db: pg.Pool, runId: number): Promise<RunBill> {
  const r = await db.query<Record<string, number | null>>(billedOfRunSql('$1::bigint'), [runId]);
  return runBillOf(r.rows[0]);
}
