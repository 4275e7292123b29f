import type { JobFailure, JobRecord, RunBill } from './types.js';

// The one ledger of what the service billed, the same on both backends. Two tables hold it:
// `charges`, one row per translated document the service billed (sure, with its document id, written
// when the service reports the document done) or may have billed (an upload whose answer was lost or
// hidden by a crash: possibly, its characters those of the same document's bill once known), and
// `text_requests`, one row per text request of the segment path. Every figure of what was billed
// (a run's summary, `report`, `status`, the monthly budget) is a sum over these two, never over the
// jobs' own billed_characters, which a document bought again would overwrite.

/** What the ledger records as a transition of a job is written (in the same transaction). */
export type Charge =
  /** The service reported this document translated, with its bill. */
  | { sure: true; job: JobRecord; documentId: string; characters: number }
  /** An upload the service may have accepted (and billed) without its answer reaching us. */
  | { sure: false; job: JobRecord };

/** Which transitions of a job add to the ledger, and what. */
export const chargeOf = {
  /** The service reported the job's document translated with this bill (once per document id). */
  billed: (job: JobRecord, characters: number): Charge | undefined =>
    job.document_id ? { sure: true, job, documentId: job.document_id, characters } : undefined,
  /** A crash hid whether an upload arrived: the next upload may be its second bill. */
  unconfirmed: (job: JobRecord): Charge => ({ sure: false, job }),
  /** An upload whose answer was lost after the document was sent may have been billed. */
  failed: (job: JobRecord, f: JobFailure): Charge | undefined =>
    f.kind === 'maybe-accepted' ? { sure: false, job } : undefined,
};

/** A statement with named parameters (`:name`), as each backend spells them. */
export interface ChargeStatement {
  sql: string;
  params: Record<string, string | number | null>;
}

const RECORD_BILLED = `INSERT INTO charges (job_id, document_id, characters, sure, run_id)
  VALUES (:job, :document, :characters, 1, :run) ON CONFLICT (document_id) DO NOTHING`;
// A possible charge of a document bills what the same document bills (same content, same settings).
const FILL_POSSIBLE = `UPDATE charges SET characters = :characters
  WHERE job_id = :job AND sure = 0 AND characters IS NULL`;
// The segment path's possible charges are its text requests recorded as sent: none added here.
const RECORD_POSSIBLE = `INSERT INTO charges (job_id, document_id, characters, sure, run_id)
  SELECT CAST(:job AS BIGINT), NULL, CAST(:characters AS BIGINT), 0, CAST(:run AS BIGINT)
  WHERE NOT EXISTS (SELECT 1 FROM text_requests WHERE job_id = :job)`;

/** The statements that record `c`. */
export function chargeStatements(c: Charge): ChargeStatement[] {
  const base = { job: c.job.id, run: c.job.run_id };
  if (!c.sure) return [{ sql: RECORD_POSSIBLE, params: { ...base, characters: c.job.billed_characters } }];
  const params = { ...base, document: c.documentId, characters: c.characters };
  return [
    { sql: RECORD_BILLED, params },
    { sql: FILL_POSSIBLE, params: { job: c.job.id, characters: c.characters } },
  ];
}

/** SQLite's spelling: `@name`, the parameters as an object. */
export function sqliteStatement(s: ChargeStatement): { sql: string; params: ChargeStatement['params'] } {
  return { sql: s.sql.replace(/:(\w+)/g, '@$1'), params: s.params };
}

/** PostgreSQL's spelling: `$n` in order of first use, the parameters as a list. */
export function pgStatement(s: ChargeStatement): { sql: string; values: unknown[] } {
  const order: string[] = [];
  const sql = s.sql.replace(/:(\w+)/g, (_, name: string) => {
    if (!order.includes(name)) order.push(name);
    return `$${order.indexOf(name) + 1}`;
  });
  return { sql, values: order.map((n) => s.params[n] ?? null) };
}

/** SQL answering one row `{ billed }` since a moment; `p` is the moment's parameter as the backend spells it. */
export const billedSinceSql = (p: string): string =>
  `SELECT CAST(
     COALESCE((SELECT SUM(characters) FROM charges WHERE at >= ${p}), 0)
     + COALESCE((SELECT SUM(characters) FROM text_requests WHERE sent_at >= ${p}), 0) AS BIGINT) AS billed`;

/**
 * The request a text_requests row is a share of: rows of one request packed across documents share
 * it (rows written before it was recorded are each a request of their own).
 */
export const REQUEST_OF_ROW = "COALESCE(request, 'row ' || CAST(id AS TEXT))";

/** What one run billed, and for what (RunBill). */
export const billedOfRunSql = (p: string): string =>
  `SELECT CAST(
     COALESCE((SELECT SUM(characters) FROM charges WHERE run_id = ${p}), 0)
     + COALESCE((SELECT SUM(characters) FROM text_requests WHERE run_id = ${p}), 0) AS BIGINT) AS characters,
     CAST((SELECT COUNT(*) FROM charges WHERE run_id = ${p} AND sure = 1) AS BIGINT) AS documents,
     CAST((SELECT COUNT(*) FROM charges WHERE run_id = ${p} AND sure = 0) AS BIGINT) AS possibly,
     CAST((SELECT COUNT(DISTINCT ${REQUEST_OF_ROW}) FROM text_requests WHERE run_id = ${p}) AS BIGINT) AS text_requests`;

export function runBillOf(row: Record<string, number | null> | undefined): RunBill {
  return {
    characters: Number(row?.characters ?? 0),
    documents: Number(row?.documents ?? 0),
    possibly: Number(row?.possibly ?? 0),
    textRequests: Number(row?.text_requests ?? 0),
  };
}

/** The table, for the migrations (`id` and `at` as each backend spells them). */
export const chargesTable = (id: string, at: string, text: string, int: string): string =>
  `CREATE TABLE charges (
     id ${id},
     job_id ${int} NOT NULL,
     document_id ${text} UNIQUE,
     characters ${int},
     sure integer NOT NULL,
     run_id ${int},
     at ${at}
   );
   CREATE INDEX charges_job ON charges (job_id);
   CREATE INDEX charges_run ON charges (run_id);
   CREATE INDEX charges_at ON charges (at);`;

/**
 * The charges a state made before the ledger already knew, taken from its jobs: each document job's
 * last recorded bill (a segment job's are its text requests).
 */
export const BACKFILL_CHARGES = `INSERT INTO charges (job_id, document_id, characters, sure, run_id, at)
  SELECT j.id, j.document_id, j.billed_characters, 1, j.run_id, COALESCE(j.finished_at, j.updated_at) FROM jobs j
  WHERE j.billed_characters IS NOT NULL AND j.billed_characters > 0 AND j.reused_from IS NULL
    AND NOT EXISTS (SELECT 1 FROM text_requests t WHERE t.job_id = j.id)
    AND (j.document_id IS NULL OR j.id = (SELECT MAX(k.id) FROM jobs k WHERE k.document_id = j.document_id));`;
