import type Database from 'better-sqlite3';
import type {
  BroughtOrigin,
  BroughtRow,
  ExportedRow,
  ExportFilter,
  MemoryImportRecord,
  MemoryImportWriter,
  MemoryStats,
  MemoryStatsRow,
  PutCounts,
  SegmentOrigin,
  TranslationMemory,
} from '../memory-types.js';

// The translation memory as a whole on SQLite (see TranslationMemory): imports in one transaction
// each (BEGIN IMMEDIATE ... COMMIT around the import's batches: the command holds the state's lock,
// nothing else writes meanwhile), stats, forgetting, export in pages.

const PAGE = 5_000;

function filterSql(f: ExportFilter): { where: string; args: string[] } {
  const parts: string[] = [];
  const args: string[] = [];
  if (f.targetLang) {
    parts.push('target_lang = ?');
    args.push(f.targetLang);
  }
  if (f.origins && f.origins.length > 0) {
    parts.push(`origin IN (${f.origins.map(() => '?').join(',')})`);
    args.push(...f.origins);
  }
  return { where: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', args };
}

class SqliteImport implements MemoryImportWriter {
  private readonly existing;
  private readonly insert;
  private readonly update;
  private open = true;
  constructor(
    private readonly db: Database.Database,
    readonly id: number,
    private readonly origin: BroughtOrigin,
  ) {
    this.existing = db.prepare<[string, string], { changed_at: string | null; translation: string }>(
      'SELECT changed_at, translation FROM segment_memory WHERE key = ? AND origin = ?',
    );
    this.insert = db.prepare(
      `INSERT INTO segment_memory (key, origin, source, source_lang, target_lang, settings, translation, run_id, created_at, changed_at, document, import_id)
       VALUES (@key, @origin, @source, @source_lang, @target_lang, '*', @translation, NULL, @created_at, @changed_at, @document, @import_id)`,
    );
    this.update = db.prepare(
      `UPDATE segment_memory SET translation = @translation, changed_at = @changed_at, document = @document,
         import_id = @import_id, created_at = @created_at WHERE key = @key AND origin = @origin`,
    );
  }

  async put(rows: readonly BroughtRow[]): Promise<PutCounts> {
    const counts: PutCounts = { stored: 0, replaced: 0, older: 0 };
    const at = new Date().toISOString();
    for (const r of rows) {
      const had = this.existing.get(r.key, this.origin);
      const values = { ...r, origin: this.origin, created_at: at, import_id: this.id };
      if (!had) {
        this.insert.run(values);
        counts.stored++;
      } else if ((r.changed_at ?? '') >= (had.changed_at ?? '')) {
        // The newest wins; of two equally old, the later in the file.
        this.update.run(values);
        counts.replaced++;
      } else counts.older++;
    }
    return counts;
  }

  async finish(units: number): Promise<void> {
    this.db.prepare('UPDATE memory_imports SET units = ? WHERE id = ?').run(units, this.id);
    this.db.exec('COMMIT');
    this.open = false;
  }

  async abandon(): Promise<void> {
    if (this.open) this.db.exec('ROLLBACK');
    this.open = false;
  }
}

export class SqliteTranslationMemory implements TranslationMemory {
  constructor(private readonly db: Database.Database) {}

  async beginImport(meta: { file: string; origin: BroughtOrigin }): Promise<MemoryImportWriter> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const id = Number(
        this.db
          .prepare('INSERT INTO memory_imports (file, origin, imported_at, units) VALUES (?, ?, ?, 0)')
          .run(meta.file, meta.origin, new Date().toISOString()).lastInsertRowid,
      );
      return new SqliteImport(this.db, id, meta.origin);
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  async stats(): Promise<MemoryStats> {
    const pairs = this.db
      .prepare<[], MemoryStatsRow>(
        `SELECT source_lang, target_lang, origin, COUNT(*) AS units FROM segment_memory
         GROUP BY source_lang, target_lang, origin ORDER BY source_lang, target_lang, origin`,
      )
      .all();
    const imports = this.db
      .prepare<[], MemoryImportRecord>(
        `SELECT i.id, i.file, i.origin, i.imported_at,
           (SELECT COUNT(*) FROM segment_memory m WHERE m.import_id = i.id) AS units
         FROM memory_imports i ORDER BY i.id`,
      )
      .all();
    return { pairs, imports, bytes: this.bytes() };
  }

  /** Pages of the memory's table and indexes (dbstat; absent from some SQLite builds). */
  private bytes(): number | undefined {
    try {
      const row = this.db
        .prepare<[], { n: number | null }>(
          `SELECT SUM(pgsize) AS n FROM dbstat WHERE name = 'segment_memory' OR name LIKE 'sqlite_autoindex_segment_memory%' OR name = 'segment_memory_import'`,
        )
        .get();
      return row?.n ?? 0;
    } catch {
      return undefined;
    }
  }

  async forget(what: { origin: SegmentOrigin } | { importId: number }): Promise<number> {
    return this.db.transaction(() => {
      if ('origin' in what)
        return this.db.prepare('DELETE FROM segment_memory WHERE origin = ?').run(what.origin).changes;
      const n = this.db.prepare('DELETE FROM segment_memory WHERE import_id = ?').run(what.importId).changes;
      this.db.prepare('DELETE FROM memory_imports WHERE id = ?').run(what.importId);
      return n;
    })();
  }

  async sourceLanguages(filter: ExportFilter): Promise<Array<string | null>> {
    const { where, args } = filterSql(filter);
    return this.db
      .prepare<string[], { l: string | null }>(
        `SELECT DISTINCT source_lang AS l FROM segment_memory ${where}`,
      )
      .all(...args)
      .map((r) => r.l);
  }

  async *rows(filter: ExportFilter): AsyncIterable<ExportedRow> {
    const { where, args } = filterSql(filter);
    // Pages by rowid: bounded memory, and no statement left open while the caller writes.
    let after = 0;
    const more = where ? `${where} AND rowid > ?` : 'WHERE rowid > ?';
    const page = this.db.prepare<Array<string | number>, ExportedRow & { rowid: number }>(
      `SELECT rowid, source, source_lang, target_lang, translation, origin, created_at, changed_at, document
       FROM segment_memory ${more} ORDER BY rowid LIMIT ${PAGE}`,
    );
    for (;;) {
      const rows = page.all(...args, after);
      for (const { rowid, ...r } of rows) {
        after = rowid;
        yield r;
      }
      if (rows.length < PAGE) return;
    }
  }
}
