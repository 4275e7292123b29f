import type pg from 'pg';
import type { ImportedWording, ImportedWordingStore } from '../wording-types.js';

// The outputs waiting for imported wording on PostgreSQL (see ImportedWordingStore): every worker
// of the pipeline sees what any machine imported.

export class PgImportedWording implements ImportedWordingStore {
  constructor(private readonly pool: pg.Pool) {}
  async list(): Promise<ImportedWording[]> {
    const r = await this.pool.query<ImportedWording>(
      'SELECT output_path AS output, mapping, job_id::int AS job_id FROM imported_wording ORDER BY output_path',
    );
    return r.rows;
  }
  async note(rows: readonly ImportedWording[]): Promise<void> {
    if (rows.length === 0) return;
    // One row per output (the last note of it), as ON CONFLICT touches a row once per statement.
    rows = [...new Map(rows.map((w) => [w.output, w])).values()];
    // One statement: the notes of one import land together or not at all.
    await this.pool.query(
      `INSERT INTO imported_wording (output_path, mapping, job_id, noted_at)
       SELECT o, m, j, now() FROM unnest($1::text[], $2::text[], $3::bigint[]) AS t (o, m, j)
       ON CONFLICT (output_path) DO UPDATE SET mapping = excluded.mapping, job_id = excluded.job_id,
         noted_at = excluded.noted_at`,
      [rows.map((w) => w.output), rows.map((w) => w.mapping), rows.map((w) => w.job_id)],
    );
  }
  async settle(rows: readonly ImportedWording[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(
      `DELETE FROM imported_wording w USING unnest($1::text[], $2::bigint[]) AS t (o, j)
        WHERE w.output_path = t.o AND w.job_id = t.j`,
      [rows.map((w) => w.output), rows.map((w) => w.job_id)],
    );
  }
}
