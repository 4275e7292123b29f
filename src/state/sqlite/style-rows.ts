import type Database from 'better-sqlite3';
import type { AppliedStyle, StyleStateStore } from '../terminology-types.js';

// state.db's style_lists table: each style list as last applied to the service (id, version, hash),
// the reconciler's view of what the service holds (src/styles/reconcile.ts).

export class SqliteStyleRows implements StyleStateStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      deleteStyle: db.prepare('DELETE FROM style_lists WHERE key = ?'),
      getStyle: db.prepare<[string], AppliedStyle>('SELECT * FROM style_lists WHERE key = ?'),
      allStyles: db.prepare<[], AppliedStyle>('SELECT * FROM style_lists ORDER BY key'),
      putStyle: db.prepare(
        `INSERT INTO style_lists (key, style_id, name, language, version, hash, applied_at)
         VALUES (@key, @style_id, @name, @language, @version, @hash, @applied_at)
         ON CONFLICT (key) DO UPDATE SET style_id = excluded.style_id, name = excluded.name, language = excluded.language,
           version = excluded.version, hash = excluded.hash, applied_at = excluded.applied_at`,
      ),
    };
  }

  getStyle(key: string): AppliedStyle | undefined {
    return this.stmts.getStyle.get(key);
  }
  setStyle(rec: AppliedStyle): void {
    this.stmts.putStyle.run(rec);
  }
  deleteStyle(key: string): void {
    this.stmts.deleteStyle.run(key);
  }
  allStyles(): AppliedStyle[] {
    return this.stmts.allStyles.all();
  }
}
