// Glossaries of the local service in its SQLite database: a glossary (id, name, creation time) holds
// dictionaries, one per language pair (lower-case base codes), each with its entries.
import type Database from 'better-sqlite3';
import type { GlossaryTerms } from './glossary-entries.js';

export interface GlossaryDictionary {
  source_lang: string;
  target_lang: string;
  entries: GlossaryTerms;
}

export interface GlossaryRow {
  glossary_id: string;
  name: string;
  creation_time: string;
  dictionaries: GlossaryDictionary[];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS glossaries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  glossary_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  creation_time TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS glossary_dictionaries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  glossary_id TEXT NOT NULL REFERENCES glossaries(glossary_id) ON DELETE CASCADE,
  source_lang TEXT NOT NULL,
  target_lang TEXT NOT NULL,
  entries TEXT NOT NULL,
  UNIQUE (glossary_id, source_lang, target_lang)
);
`;

interface DictDbRow {
  source_lang: string;
  target_lang: string;
  entries: string;
}

export class GlossaryStore {
  private readonly stmts;
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    db.exec(SCHEMA);
    this.stmts = {
      insert: db.prepare('INSERT INTO glossaries (glossary_id, name, creation_time) VALUES (?, ?, ?)'),
      get: db.prepare('SELECT glossary_id, name, creation_time FROM glossaries WHERE glossary_id = ?'),
      list: db.prepare('SELECT glossary_id, name, creation_time FROM glossaries ORDER BY seq'),
      rename: db.prepare('UPDATE glossaries SET name = ? WHERE glossary_id = ?'),
      delete: db.prepare('DELETE FROM glossaries WHERE glossary_id = ?'),
      dicts: db.prepare(
        'SELECT source_lang, target_lang, entries FROM glossary_dictionaries WHERE glossary_id = ? ORDER BY seq',
      ),
      dict: db.prepare(
        'SELECT source_lang, target_lang, entries FROM glossary_dictionaries WHERE glossary_id = ? AND source_lang = ? AND target_lang = ?',
      ),
      upsertDict: db.prepare(
        `INSERT INTO glossary_dictionaries (glossary_id, source_lang, target_lang, entries) VALUES (?, ?, ?, ?)
         ON CONFLICT (glossary_id, source_lang, target_lang) DO UPDATE SET entries = excluded.entries`,
      ),
      deleteDict: db.prepare(
        'DELETE FROM glossary_dictionaries WHERE glossary_id = ? AND source_lang = ? AND target_lang = ?',
      ),
      deleteDicts: db.prepare('DELETE FROM glossary_dictionaries WHERE glossary_id = ?'),
    };
  }

  private withDictionaries(r: Omit<GlossaryRow, 'dictionaries'>): GlossaryRow {
    const dicts = (this.stmts.dicts.all(r.glossary_id) as DictDbRow[]).map(dictFromDb);
    return { ...r, dictionaries: dicts };
  }

  create(g: GlossaryRow): void {
    this.db.transaction(() => {
      this.stmts.insert.run(g.glossary_id, g.name, g.creation_time);
      for (const d of g.dictionaries) this.putDictionary(g.glossary_id, d);
    })();
  }

  get(id: string): GlossaryRow | undefined {
    const r = this.stmts.get.get(id) as Omit<GlossaryRow, 'dictionaries'> | undefined;
    return r && this.withDictionaries(r);
  }

  list(): GlossaryRow[] {
    return (this.stmts.list.all() as Array<Omit<GlossaryRow, 'dictionaries'>>).map((r) =>
      this.withDictionaries(r),
    );
  }

  /** The dictionary of one language pair (lower-case base codes). */
  dictionary(id: string, source: string, target: string): GlossaryDictionary | undefined {
    const r = this.stmts.dict.get(id, source, target) as DictDbRow | undefined;
    return r && dictFromDb(r);
  }

  /** Renames and/or writes dictionaries (each replaces the pair's entries) in one transaction. */
  update(id: string, name: string | undefined, dicts: GlossaryDictionary[]): void {
    this.db.transaction(() => {
      if (name !== undefined) this.stmts.rename.run(name, id);
      for (const d of dicts) this.putDictionary(id, d);
    })();
  }

  putDictionary(id: string, d: GlossaryDictionary): void {
    this.stmts.upsertDict.run(id, d.source_lang, d.target_lang, JSON.stringify(d.entries));
  }

  deleteDictionary(id: string, source: string, target: string): boolean {
    return this.stmts.deleteDict.run(id, source, target).changes > 0;
  }

  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.stmts.deleteDicts.run(id);
      return this.stmts.delete.run(id).changes > 0;
    })();
  }
}

function dictFromDb(r: DictDbRow): GlossaryDictionary {
  return {
    source_lang: r.source_lang,
    target_lang: r.target_lang,
    entries: JSON.parse(r.entries) as GlossaryTerms,
  };
}
