import type pg from 'pg';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import type { JobRecord } from '../state/types.js';
import { REPORT_SQL, type BilledJob, type ReportRows } from './queries.js';

// The report's rows read from a PostgreSQL state, once, for one `since`: the report is then made
// from them exactly as from state.db.

const pgParam = (n: number) => `$${n}`;

export async function postgresReportRows(pool: pg.Pool, since: string | undefined): Promise<ReportRows> {
  const args = since ? [since] : [];
  const [done, minimum, repeated] = await Promise.all([
    pool.query<BilledJob>(REPORT_SQL.doneJobs(!!since, pgParam), args),
    pool.query<{ mapping: string; rel_path: string; sha256: string }>(
      REPORT_SQL.minimumCandidates(!!since, pgParam),
      [MINIMUM_BILLED_CHARACTERS, ...args],
    ),
    pool.query<JobRecord>(REPORT_SQL.repeatedJobs(!!since, pgParam), args),
  ]);
  const check = (asked: string | undefined) => {
    if (asked !== since)
      throw new Error(`report rows were read since ${since ?? 'ever'}, not ${asked ?? 'ever'}`);
  };
  return {
    doneJobs: (s) => (check(s), done.rows),
    minimumCandidates: (s) => (check(s), minimum.rows),
    repeatedJobs: (s) => (check(s), repeated.rows),
  };
}
