import Database from 'better-sqlite3';
import { isStateDamage } from './integrity.js';

// `locsync state check`: SQLite's own integrity check, on a read-only connection (never creates or
// changes the file, works while a sync runs).

/**
 * SQLite's integrity check of the file at `statePath`, opened read-only: an empty list when it is
 * sound, else what is wrong (a file that is not a database is one problem, not an exception).
 */
export function checkStateFile(statePath: string): string[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(statePath, { readonly: true, fileMustExist: true });
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length) problems.push(`${fk.length} rows break a foreign key`);
    return problems;
  } catch (err) {
    if (isStateDamage(err)) return [(err as Error).message];
    throw err;
  } finally {
    db?.close();
  }
}
