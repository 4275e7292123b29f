import type Database from 'better-sqlite3';
import type { AppliedGlossary, GlossaryStateStore } from './terminology-types.js';

// The `glossaries` table of state.db: what locsync last applied per glossary of the manifest.

interface Row {
  key: string;
  glossary_id: string;
  name: string;
  hashes: string;
  applied_at: string;
}

function fromRow(r: Row): AppliedGlossary {
  return { ...r, hashes: JSON.parse(r.hashes) as Record<string, string> };
}

export class SqliteGlossaryState implements GlossaryStateStore {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], Row>('SELECT * FROM glossaries WHERE key = ?'),
      all: db.prepare<[], Row>('SELECT * FROM glossaries ORDER BY key'),
      del: db.prepare('DELETE FROM glossaries WHERE key = ?'),
      put: db.prepare(
        `INSERT INTO glossaries (key, glossary_id, name, hashes, applied_at)
         VALUES (@key, @glossary_id, @name, @hashes, @applied_at)
         ON CONFLICT (key) DO UPDATE SET glossary_id = excluded.glossary_id, name = excluded.name,
           hashes = excluded.hashes, applied_at = excluded.applied_at`,
      ),
    };
  }

  getGlossary(key: string): AppliedGlossary | undefined {
    const r = this.stmts.get.get(key);
    return r ? fromRow(r) : undefined;
  }
  setGlossary(rec: AppliedGlossary): void {
    this.stmts.put.run({ ...rec, hashes: JSON.stringify(rec.hashes) });
  }
  deleteGlossary(key: string): void {
    this.stmts.del.run(key);
  }
  allGlossaries(): AppliedGlossary[] {
    return this.stmts.all.all().map(fromRow);
  }
}
