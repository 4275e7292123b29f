// Where a run's segment-path translations came from, as the ledger keeps it (the leverage of a run,
// src/billing/leverage.ts; docs/memory.md), the same on both backends. The new segments and what
// they billed are the text requests themselves (text_requests: an answered request's texts are the
// segments it bought, every request's characters what it may have billed); the rest is one row per
// job per run in `segment_leverage`, written once the job has every translation: its segments
// repeated in the run (bought once, by another job or earlier in the same job), from the memory
// reviewed or imported, and from the memory machine (the service's, bought by an earlier run).

/** A job's segments that did not need buying, as it counted them once it had every translation. */
export interface JobLeverageCounts {
  /**
   * Occurrences of segments bought in this run (by this job or another): those beyond what this
   * job's answered text requests bought are recorded as repeated.
   */
  run: { segments: number; characters: number };
  reviewed: { segments: number; characters: number };
  machine: { segments: number; characters: number };
}

/** One row of a run's leverage (a job's row or a text request), with its job's keys. */
export interface LeverageRow {
  mapping: string;
  target_lang: string;
  at: string;
  new_segments: number;
  new_characters: number;
  /** Characters its text requests billed (answered, or maybe billed): what the new segments cost. */
  billed_characters: number;
  repeated_segments: number;
  repeated_characters: number;
  reviewed_segments: number;
  reviewed_characters: number;
  machine_segments: number;
  machine_characters: number;
}

/** A statement with named parameters (`:name`), as ./billed.ts's sqliteStatement/pgStatement spell them. */
export interface LeverageStatement {
  sql: string;
  params: Record<string, number>;
}

/** Which rows a read takes: one run's, those since a moment (ISO), or all. */
export type LeverageScope = { run: number } | { since: string } | Record<string, never>;

const int = (name: string) => `CAST(:${name} AS BIGINT)`;
/** `a - b`, never below 0 (both backends' SQL). */
const beyond = (a: string, b: string) => `CASE WHEN ${a} > ${b} THEN ${a} - ${b} ELSE 0 END`;

const RECORD = `INSERT INTO segment_leverage (job_id, run_id, repeated_segments, repeated_characters,
    reviewed_segments, reviewed_characters, machine_segments, machine_characters)
  SELECT ${int('job')}, ${int('run')}, ${beyond(int('run_segments'), 'b.texts')},
    ${beyond(int('run_characters'), 'b.characters')}, ${int('reviewed_segments')},
    ${int('reviewed_characters')}, ${int('machine_segments')}, ${int('machine_characters')}
  FROM (SELECT CAST(COALESCE(SUM(texts), 0) AS BIGINT) AS texts,
          CAST(COALESCE(SUM(characters), 0) AS BIGINT) AS characters
        FROM text_requests WHERE job_id = ${int('job')} AND run_id = ${int('run')} AND state = 'answered') b`;

/** The statement that records a job's counts of run `runId`. */
export function leverageStatement(jobId: number, runId: number, c: JobLeverageCounts): LeverageStatement {
  return {
    sql: RECORD,
    params: {
      job: jobId,
      run: runId,
      run_segments: c.run.segments,
      run_characters: c.run.characters,
      reviewed_segments: c.reviewed.segments,
      reviewed_characters: c.reviewed.characters,
      machine_segments: c.machine.segments,
      machine_characters: c.machine.characters,
    },
  };
}

/**
 * The rows of a scope: each job's row and each text request, with their job's mapping and target.
 * `p(n)` writes the n-th parameter as the backend spells it; the scope's value is parameter 1 of
 * both halves (SQLite passes it twice).
 */
export function leverageRowsSql(kind: 'run' | 'since' | 'all', p: (n: number) => string): string {
  const where = (alias: string, at: string) =>
    kind === 'run' ? ` WHERE ${alias}.run_id = ${p(1)}` : kind === 'since' ? ` WHERE ${at} >= ${p(1)}` : '';
  return `SELECT j.mapping, j.target_lang, l.at AS at, 0 AS new_segments, 0 AS new_characters,
      0 AS billed_characters, l.repeated_segments, l.repeated_characters, l.reviewed_segments,
      l.reviewed_characters, l.machine_segments, l.machine_characters
    FROM segment_leverage l JOIN jobs j ON j.id = l.job_id${where('l', 'l.at')}
    UNION ALL
    SELECT j.mapping, j.target_lang, t.sent_at AS at,
      CASE WHEN t.state = 'answered' THEN t.texts ELSE 0 END AS new_segments,
      CASE WHEN t.state = 'answered' THEN t.characters ELSE 0 END AS new_characters,
      t.characters AS billed_characters, 0, 0, 0, 0, 0, 0
    FROM text_requests t JOIN jobs j ON j.id = t.job_id${where('t', 't.sent_at')}`;
}

/**
 * The read of a scope's rows as a backend runs it. PostgreSQL names the scope's value `$1` in both
 * halves of the union; SQLite's `?` takes it once per half.
 */
export function leverageRead(
  scope: LeverageScope,
  backend: 'sqlite' | 'postgres',
): { sql: string; values: Array<string | number> } {
  const kind = 'run' in scope ? 'run' : 'since' in scope ? 'since' : 'all';
  const value = 'run' in scope ? [scope.run] : 'since' in scope ? [scope.since] : [];
  return backend === 'sqlite'
    ? { sql: leverageRowsSql(kind, () => '?'), values: [...value, ...value] }
    : { sql: leverageRowsSql(kind, (n) => `$${n}`), values: value };
}

/** The table, for the migrations (`id` and `at` as each backend spells them). */
export const leverageTable = (id: string, at: string, int: string): string =>
  `CREATE TABLE segment_leverage (
     id ${id},
     job_id ${int} NOT NULL,
     run_id ${int},
     repeated_segments ${int} NOT NULL,
     repeated_characters ${int} NOT NULL,
     reviewed_segments ${int} NOT NULL,
     reviewed_characters ${int} NOT NULL,
     machine_segments ${int} NOT NULL,
     machine_characters ${int} NOT NULL,
     at ${at}
   );
   CREATE INDEX segment_leverage_run ON segment_leverage (run_id);
   CREATE INDEX segment_leverage_at ON segment_leverage (at);`;
