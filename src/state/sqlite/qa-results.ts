import type Database from 'better-sqlite3';
import type { QaResultRow, QaResultStore } from '../qa-types.js';

// The output checks' verdicts on SQLite (see QaResultStore): one row per output, the last verdict.

export class SqliteQaResults implements QaResultStore {
  private readonly putStmt;
  constructor(private readonly db: Database.Database) {
    this.putStmt = db.prepare<QaResultRow>(
      `INSERT INTO qa_results (output_path, job_id, mapping, rel_path, target_lang, outcome, findings, checked_at)
       VALUES (@output_path, @job_id, @mapping, @rel_path, @target_lang, @outcome, @findings, @checked_at)
       ON CONFLICT (output_path) DO UPDATE SET job_id = excluded.job_id, mapping = excluded.mapping,
         rel_path = excluded.rel_path, target_lang = excluded.target_lang, outcome = excluded.outcome,
         findings = excluded.findings, checked_at = excluded.checked_at`,
    );
  }
  async record(row: QaResultRow): Promise<void> {
    this.putStmt.run(row);
  }
  async list(outcomes: ReadonlyArray<QaResultRow['outcome']>): Promise<QaResultRow[]> {
    if (outcomes.length === 0) return [];
    return this.db
      .prepare<string[], QaResultRow>(
        `SELECT * FROM qa_results WHERE outcome IN (${outcomes.map(() => '?').join(',')}) ORDER BY output_path`,
      )
      .all(...outcomes);
  }
}
