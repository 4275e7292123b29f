import type Database from 'better-sqlite3';
import type { ImportedWording, ImportedWordingStore } from '../wording-types.js';

// The outputs waiting for imported wording on SQLite (see ImportedWordingStore).

export class SqliteImportedWording implements ImportedWordingStore {
  private readonly putStmt;
  private readonly dropStmt;
  constructor(private readonly db: Database.Database) {
    this.putStmt = db.prepare<ImportedWording & { noted_at: string }>(
      `INSERT INTO imported_wording (output_path, mapping, job_id, noted_at)
       VALUES (@output, @mapping, @job_id, @noted_at)
       ON CONFLICT (output_path) DO UPDATE SET mapping = excluded.mapping, job_id = excluded.job_id,
         noted_at = excluded.noted_at`,
    );
    this.dropStmt = db.prepare<{ output: string; job_id: number }>(
      'DELETE FROM imported_wording WHERE output_path = @output AND job_id = @job_id',
    );
  }
  async list(): Promise<ImportedWording[]> {
    return this.db
      .prepare<[], ImportedWording>(
        'SELECT output_path AS output, mapping, job_id FROM imported_wording ORDER BY output_path',
      )
      .all();
  }
  async note(rows: readonly ImportedWording[]): Promise<void> {
    const noted_at = new Date().toISOString();
    this.db.transaction(() => {
      for (const w of rows)
        this.putStmt.run({ output: w.output, mapping: w.mapping, job_id: w.job_id, noted_at });
    })();
  }
  async settle(rows: readonly ImportedWording[]): Promise<void> {
    this.db.transaction(() => {
      for (const w of rows) this.dropStmt.run({ output: w.output, job_id: w.job_id });
    })();
  }
}
