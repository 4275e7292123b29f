import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { leverageRowsSql, type LeverageRow } from '../state/leverage-ledger.js';
import type { JobRecord, StateStore } from '../state/store.js';

// The rows a billing report is made from, as each backend answers them: the SQL (both backends'
// spelling of it) and SQLite's answers; PostgreSQL's rows are read beforehand (./postgres-rows.ts).
// The figures are made from these rows in ./queries.ts, the same for both.

/** One billed (or possibly billed) call from the ledger (src/state/billed.ts), with its job's keys. */
export interface ChargeRow {
  mapping: string;
  target_lang: string;
  at: string;
  characters: number;
  /** 1: billed for sure; 0: possibly. */
  sure: number;
}

export interface BilledJob {
  mapping: string;
  rel_path: string;
  sha256: string;
  target_lang: string;
  billed_characters: number | null;
  source_characters: number | null;
  finished_at: string | null;
  reused_from: number | null;
}

/**
 * The text requests of one segment job not done (its bill is not recorded yet): what they billed,
 * sent at or after `since`, and when the last was sent.
 */
export interface UnfinishedSegments {
  mapping: string;
  target_lang: string;
  sent_at: string;
  characters: number;
}

/** A job uploaded again after a possibly billed upload, with its text requests (method: segments). */
export type RepeatedJob = JobRecord & {
  /** Text requests recorded for it (0: a document upload). */
  text_requests: number;
  unanswered_requests: number;
  unanswered_characters: number;
};

/**
 * The rows a report is made from, as one backend answers them (`since`: ISO, finished at or after).
 * SQLite answers from state.db; PostgreSQL's rows are read beforehand (./postgres-rows.ts).
 */
export interface ReportRows {
  /** Done jobs, the columns a billing row needs. */
  doneJobs(since?: string): Iterable<BilledJob>;
  /** Done jobs billed at exactly the minimum, real count unknown, source unchanged since. */
  minimumCandidates(since?: string): Array<{ mapping: string; rel_path: string; sha256: string }>;
  /** Jobs uploaded again after a possibly billed upload, latest first. */
  repeatedJobs(since?: string): RepeatedJob[];
  /** Segment jobs not done, with what their text requests billed (sent since `since`). */
  unfinishedSegments(since?: string): UnfinishedSegments[];
  /** The ledger's charges and text requests (billed since `since`). */
  charges(since?: string): Iterable<ChargeRow>;
  /** Where the segment path's segments came from: jobs' counts and text requests (since `since`). */
  leverage(since?: string): Iterable<LeverageRow>;
}

export type ReportSource = StateStore | ReportRows;

/** The SQL of the report's rows: `p(n)` writes the n-th parameter as the backend spells it. */
export const REPORT_SQL = {
  doneJobs: (since: boolean, p: (n: number) => string) =>
    `SELECT mapping, rel_path, sha256, target_lang, billed_characters, source_characters, finished_at, reused_from
     FROM jobs WHERE status = 'done'` + (since ? ` AND finished_at >= ${p(1)}` : ''),
  minimumCandidates: (since: boolean, p: (n: number) => string) =>
    `SELECT DISTINCT j.mapping, j.rel_path, j.sha256 FROM jobs j
     JOIN files f ON f.mapping = j.mapping AND f.rel_path = j.rel_path AND f.sha256 = j.sha256
     WHERE j.status = 'done' AND j.reused_from IS NULL AND j.source_characters IS NULL
       AND j.billed_characters = ${p(1)}` + (since ? ` AND j.finished_at >= ${p(2)}` : ''),
  repeatedJobs: (since: boolean, p: (n: number) => string) =>
    `SELECT j.*,
       (SELECT COUNT(*) FROM text_requests t WHERE t.job_id = j.id) AS text_requests,
       (SELECT COUNT(*) FROM text_requests t WHERE t.job_id = j.id AND t.state <> 'answered') AS unanswered_requests,
       (SELECT CAST(COALESCE(SUM(t.characters), 0) AS BIGINT) FROM text_requests t
         WHERE t.job_id = j.id AND t.state <> 'answered') AS unanswered_characters
     FROM jobs j WHERE (j.unconfirmed_uploads > 0 OR j.lost_downloads > 0)` +
    (since ? ` AND COALESCE(j.finished_at, j.updated_at) >= ${p(1)}` : '') +
    ' ORDER BY COALESCE(j.finished_at, j.updated_at) DESC',
  unfinishedSegments: (since: boolean, p: (n: number) => string) =>
    `SELECT j.mapping, j.target_lang, MAX(t.sent_at) AS sent_at, CAST(SUM(t.characters) AS BIGINT) AS characters
     FROM text_requests t JOIN jobs j ON j.id = t.job_id
     WHERE j.billed_characters IS NULL` +
    (since ? ` AND t.sent_at >= ${p(1)}` : '') +
    ' GROUP BY j.id, j.mapping, j.target_lang',
  // `since` is the first parameter of both halves (SQLite's rows pass it twice).
  charges: (since: boolean, p: (n: number) => string) =>
    `SELECT j.mapping, j.target_lang, c.at AS at, COALESCE(c.characters, 0) AS characters, c.sure
     FROM charges c JOIN jobs j ON j.id = c.job_id` +
    (since ? ` WHERE c.at >= ${p(1)}` : '') +
    ` UNION ALL
     SELECT j.mapping, j.target_lang, t.sent_at AS at, t.characters,
       CASE WHEN t.state = 'answered' THEN 1 ELSE 0 END AS sure
     FROM text_requests t JOIN jobs j ON j.id = t.job_id` +
    (since ? ` WHERE t.sent_at >= ${p(1)}` : ''),
  // `since` is the first parameter of both halves, as for charges.
  leverage: (since: boolean, p: (n: number) => string) => leverageRowsSql(since ? 'since' : 'all', p),
} as const;

const sqliteParam = () => '?';

export function rowsOf(state: ReportSource): ReportRows {
  if (!('db' in state)) return state;
  const db = state.db;
  const sinceArgs = (since?: string) => (since ? [since] : []);
  return {
    doneJobs: (since) =>
      db
        .prepare<unknown[], BilledJob>(REPORT_SQL.doneJobs(!!since, sqliteParam))
        .iterate(...sinceArgs(since)),
    minimumCandidates: (since) =>
      db
        .prepare<unknown[], { mapping: string; rel_path: string; sha256: string }>(
          REPORT_SQL.minimumCandidates(!!since, sqliteParam),
        )
        .all(MINIMUM_BILLED_CHARACTERS, ...sinceArgs(since)),
    repeatedJobs: (since) =>
      db
        .prepare<unknown[], RepeatedJob>(REPORT_SQL.repeatedJobs(!!since, sqliteParam))
        .all(...sinceArgs(since)),
    unfinishedSegments: (since) =>
      db
        .prepare<unknown[], UnfinishedSegments>(REPORT_SQL.unfinishedSegments(!!since, sqliteParam))
        .all(...sinceArgs(since)),
    charges: (since) =>
      db
        .prepare<unknown[], ChargeRow>(REPORT_SQL.charges(!!since, sqliteParam))
        .all(...sinceArgs(since), ...sinceArgs(since)),
    leverage: (since) =>
      db
        .prepare<unknown[], LeverageRow>(REPORT_SQL.leverage(!!since, sqliteParam))
        .iterate(...sinceArgs(since), ...sinceArgs(since)),
  };
}
