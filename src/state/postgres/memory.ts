import type pg from 'pg';
import type {
  BroughtOrigin,
  BroughtRow,
  ExportedRow,
  ExportFilter,
  MemoryImportWriter,
  MemoryStats,
  PutCounts,
  SegmentOrigin,
  TranslationMemory,
} from '../memory-types.js';

// The translation memory as a whole on PostgreSQL (see TranslationMemory), in the pipeline's own
// schema (a pipeline's memory is its own): an import holds one connection and one transaction from
// its first batch to its commit; a batch is one INSERT ... ON CONFLICT that keeps the newest.

const PAGE = 5_000;

/** Newest wins (of two equally old, the later); `xmax = 0` tells a new row from a replaced one. */
const PUT_SQL = `INSERT INTO segment_memory AS m (key, origin, source, source_lang, target_lang, settings, translation,
    changed_at, document, import_id)
  SELECT k, $1, s, sl, tl, '*', t, c, d, $2 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[]) AS u(k, s, sl, tl, t, c, d)
  ON CONFLICT (key, origin) DO UPDATE SET translation = excluded.translation, changed_at = excluded.changed_at,
    document = excluded.document, import_id = excluded.import_id, created_at = now()
  WHERE coalesce(excluded.changed_at, '') >= coalesce(m.changed_at, '')
  RETURNING (xmax = 0) AS inserted`;

function filterSql(f: ExportFilter, from = 1): { where: string; args: unknown[] } {
  const parts: string[] = [];
  const args: unknown[] = [];
  if (f.targetLang) {
    args.push(f.targetLang);
    parts.push(`target_lang = $${from + args.length - 1}`);
  }
  if (f.origins && f.origins.length > 0) {
    args.push(f.origins);
    parts.push(`origin = ANY($${from + args.length - 1}::text[])`);
  }
  return { where: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', args };
}

class PgImport implements MemoryImportWriter {
  private open = true;
  constructor(
    private readonly client: pg.PoolClient,
    readonly id: number,
    private readonly origin: BroughtOrigin,
  ) {}

  async put(rows: readonly BroughtRow[]): Promise<PutCounts> {
    // One INSERT must not name a key twice: of a batch's duplicates the newest goes in, the others
    // count as older.
    const by = new Map<string, BroughtRow>();
    let older = 0;
    for (const r of rows) {
      const had = by.get(r.key);
      if (had) older++;
      if (!had || (r.changed_at ?? '') >= (had.changed_at ?? '')) by.set(r.key, r);
    }
    const batch = [...by.values()];
    const res = await this.client.query<{ inserted: boolean }>(PUT_SQL, [
      this.origin,
      this.id,
      batch.map((r) => r.key),
      batch.map((r) => r.source),
      batch.map((r) => r.source_lang),
      batch.map((r) => r.target_lang),
      batch.map((r) => r.translation),
      batch.map((r) => r.changed_at),
      batch.map((r) => r.document),
    ]);
    const stored = res.rows.filter((r) => r.inserted).length;
    const replaced = res.rows.length - stored;
    return { stored, replaced, older: older + batch.length - res.rows.length };
  }

  async finish(units: number): Promise<void> {
    try {
      await this.client.query('UPDATE memory_imports SET units = $1 WHERE id = $2', [units, this.id]);
      await this.client.query('COMMIT');
      this.open = false;
    } finally {
      if (this.open) await this.abandon();
      else this.client.release();
    }
  }

  async abandon(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    try {
      await this.client.query('ROLLBACK');
    } finally {
      this.client.release();
    }
  }
}

export class PgTranslationMemory implements TranslationMemory {
  constructor(private readonly pool: pg.Pool) {}

  async beginImport(meta: { file: string; origin: BroughtOrigin }): Promise<MemoryImportWriter> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const r = await client.query<{ id: string }>(
        'INSERT INTO memory_imports (file, origin, imported_at, units) VALUES ($1, $2, $3, 0) RETURNING id',
        [meta.file, meta.origin, new Date().toISOString()],
      );
      return new PgImport(client, Number(r.rows[0]!.id), meta.origin);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw err;
    }
  }

  async stats(): Promise<MemoryStats> {
    const pairs = await this.pool.query<{
      source_lang: string | null;
      target_lang: string;
      origin: SegmentOrigin;
      units: string;
    }>(
      `SELECT source_lang, target_lang, origin, count(*) AS units FROM segment_memory
       GROUP BY source_lang, target_lang, origin ORDER BY source_lang, target_lang, origin`,
    );
    const imports = await this.pool.query<{
      id: string;
      file: string;
      origin: BroughtOrigin;
      imported_at: string;
      units: string;
    }>(
      `SELECT i.id, i.file, i.origin, i.imported_at,
         (SELECT count(*) FROM segment_memory m WHERE m.import_id = i.id) AS units
       FROM memory_imports i ORDER BY i.id`,
    );
    const size = await this.pool.query<{ n: string }>(`SELECT pg_total_relation_size('segment_memory') AS n`);
    return {
      pairs: pairs.rows.map((r) => ({ ...r, units: Number(r.units) })),
      imports: imports.rows.map((r) => ({ ...r, id: Number(r.id), units: Number(r.units) })),
      bytes: Number(size.rows[0]?.n ?? 0),
    };
  }

  async forget(what: { origin: SegmentOrigin } | { importId: number }): Promise<number> {
    if ('origin' in what)
      return (
        (await this.pool.query('DELETE FROM segment_memory WHERE origin = $1', [what.origin])).rowCount ?? 0
      );
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const n = (await client.query('DELETE FROM segment_memory WHERE import_id = $1', [what.importId]))
        .rowCount;
      await client.query('DELETE FROM memory_imports WHERE id = $1', [what.importId]);
      await client.query('COMMIT');
      return n ?? 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async sourceLanguages(filter: ExportFilter): Promise<Array<string | null>> {
    const { where, args } = filterSql(filter);
    const r = await this.pool.query<{ l: string | null }>(
      `SELECT DISTINCT source_lang AS l FROM segment_memory ${where}`,
      args,
    );
    return r.rows.map((x) => x.l);
  }

  async *rows(filter: ExportFilter): AsyncIterable<ExportedRow> {
    const { where, args } = filterSql(filter, 3);
    // Keyset pages by (key, origin): bounded memory, no cursor held while the caller writes.
    let after: [string, string] = ['', ''];
    const more = `${where ? `${where} AND` : 'WHERE'} (key, origin) > ($1, $2)`;
    for (;;) {
      const r = await this.pool.query<ExportedRow & { key: string }>(
        `SELECT key, source, source_lang, target_lang, translation, origin, created_at::text AS created_at,
           changed_at, document
         FROM segment_memory ${more} ORDER BY key, origin LIMIT ${PAGE}`,
        [...after, ...args],
      );
      for (const { key, ...row } of r.rows) {
        after = [key, row.origin];
        yield row;
      }
      if (r.rows.length < PAGE) return;
    }
  }
}
