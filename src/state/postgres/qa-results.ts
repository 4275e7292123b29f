import type pg from 'pg';
import type { QaResultRow, QaResultStore } from '../qa-types.js';

// The output checks' verdicts on PostgreSQL (see QaResultStore): one row per output, the last verdict.

export class PgQaResults implements QaResultStore {
  constructor(private readonly pool: pg.Pool) {}
  async record(row: QaResultRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO qa_results (output_path, job_id, mapping, rel_path, target_lang, outcome, findings, checked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (output_path) DO UPDATE SET job_id = excluded.job_id, mapping = excluded.mapping,
         rel_path = excluded.rel_path, target_lang = excluded.target_lang, outcome = excluded.outcome,
         findings = excluded.findings, checked_at = excluded.checked_at`,
      [
        row.output_path,
        row.job_id,
        row.mapping,
        row.rel_path,
        row.target_lang,
        row.outcome,
        row.findings,
        row.checked_at,
      ],
    );
  }
  async list(outcomes: ReadonlyArray<QaResultRow['outcome']>): Promise<QaResultRow[]> {
    if (outcomes.length === 0) return [];
    const r = await this.pool.query<QaResultRow>(
      `SELECT output_path, job_id::int AS job_id, mapping, rel_path, target_lang, outcome, findings, checked_at
         FROM qa_results WHERE outcome = ANY($1::text[]) ORDER BY output_path`,
      [[...outcomes]],
    );
    return r.rows;
  }
}
