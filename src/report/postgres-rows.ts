import type pg from 'pg';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import type { LeverageRow } from '../state/leverage-ledger.js';
import {
  REPORT_SQL,
  type BilledJob,
  type ChargeRow,
  type RepeatedJob,
  type ReportRows,
  type UnfinishedSegments,
} from './report-rows.js';

// The report's rows read from a PostgreSQL state, once, for one `since`: the report is then made
// from them exactly as from state.db.

const pgParam = (n: number) => `$${n}`;

type ReportPart = keyof ReportRows;
const ALL_PARTS: readonly ReportPart[] = [
  'doneJobs',
  'minimumCandidates',
  'repeatedJobs',
  'unfinishedSegments',
  'charges',
  'leverage',
];

/**
 * Read the rows of `parts` (all by default): `status` asks for one part every few seconds, and
 * reading every done job to list the repeated uploads would grow with the pipeline's history.
 */
export async function postgresReportRows(
  pool: pg.Pool,
  since: string | undefined,
  parts: readonly ReportPart[] = ALL_PARTS,
): Promise<ReportRows> {
  const args = since ? [since] : [];
  const read = <T extends pg.QueryResultRow>(part: ReportPart, sql: string, params: unknown[]) =>
    parts.includes(part) ? pool.query<T>(sql, params).then((r) => r.rows) : Promise.resolve(undefined);
  const [done, minimum, repeated, unfinished, charges, leverage] = await Promise.all([
    read<BilledJob>('doneJobs', REPORT_SQL.doneJobs(!!since, pgParam), args),
    read<{ mapping: string; rel_path: string; sha256: string }>(
      'minimumCandidates',
      REPORT_SQL.minimumCandidates(!!since, pgParam),
      [MINIMUM_BILLED_CHARACTERS, ...args],
    ),
    read<RepeatedJob>('repeatedJobs', REPORT_SQL.repeatedJobs(!!since, pgParam), args),
    read<UnfinishedSegments>('unfinishedSegments', REPORT_SQL.unfinishedSegments(!!since, pgParam), args),
    read<ChargeRow>('charges', REPORT_SQL.charges(!!since, pgParam), args),
    read<LeverageRow>('leverage', REPORT_SQL.leverage(!!since, pgParam), args),
  ]);
  const rows = <T>(part: ReportPart, asked: string | undefined, value: T | undefined): T => {
    if (asked !== since)
      throw new Error(`report rows were read since ${since ?? 'ever'}, not ${asked ?? 'ever'}`);
    if (value === undefined) throw new Error(`report rows: ${part} was not read`);
    return value;
  };
  return {
    doneJobs: (s) => rows('doneJobs', s, done),
    minimumCandidates: (s) => rows('minimumCandidates', s, minimum),
    repeatedJobs: (s) => rows('repeatedJobs', s, repeated),
    unfinishedSegments: (s) => rows('unfinishedSegments', s, unfinished),
    charges: (s) => rows('charges', s, charges),
    leverage: (s) => rows('leverage', s, leverage),
  };
}
