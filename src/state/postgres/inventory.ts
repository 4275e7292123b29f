import type pg from 'pg';
import type { FileInventory, FileRecord, HashedFile, ListedFile, MappingSnapshot } from '../file-types.js';
import { VERIFY_BATCH } from '../transitions.js';
import { inTransaction } from './tx.js';

// The file inventory on PostgreSQL: the sources seen, their content, and the no-op fast paths'
// marks. Bulk reads are one query per mapping in array row mode (no object per row).

/** Records per page of FileInventory.listedPages. */
const LISTED_PAGE = 4096;

export class PgFileInventory implements FileInventory {
  constructor(private readonly pool: pg.Pool) {}

  async get(mapping: string, relPath: string): Promise<FileRecord | undefined> {
    const r = await this.pool.query<FileRecord>('SELECT * FROM files WHERE mapping = $1 AND rel_path = $2', [
      mapping,
      relPath,
    ]);
    return r.rows[0];
  }

  async listed(mapping: string): Promise<Map<string, ListedFile>> {
    const r = await this.pool.query<[string, number, number, number | null, number | null, number | null]>({
      text: 'SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = $1',
      values: [mapping],
      rowMode: 'array',
    });
    const out = new Map<string, ListedFile>();
    for (const row of r.rows) out.set(row[0], row);
    return out;
  }

  async listedIn(mapping: string, folders: readonly string[]): Promise<Map<string, ListedFile>> {
    // A file's folder computed here, not a key range: text comparison follows the database's
    // collation, where a range of paths starting with 'folder/' is not one range.
    const r = await this.pool.query<[string, number, number, number | null, number | null, number | null]>({
      text: `SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = $1
               AND (CASE WHEN strpos(rel_path, '/') = 0 THEN '' ELSE substring(rel_path from '^(.*)/') END) = ANY($2::text[])`,
      values: [mapping, [...new Set(folders)]],
      rowMode: 'array',
    });
    const out = new Map<string, ListedFile>();
    for (const row of r.rows) out.set(row[0], row);
    return out;
  }

  async *listedPages(mapping: string): AsyncIterable<ListedFile[]> {
    // Keyset pages in the database's order of paths (its collation, the same for `>` and ORDER BY).
    for (let after: string | undefined; ;) {
      const r = await this.pool.query<[string, number, number, number | null, number | null, number | null]>({
        text: `SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = $1
                 AND ($2::text IS NULL OR rel_path > $2) ORDER BY rel_path LIMIT ${LISTED_PAGE}`,
        values: [mapping, after ?? null],
        rowMode: 'array',
      });
      if (r.rows.length) yield r.rows;
      if (r.rows.length < LISTED_PAGE) return;
      after = (r.rows[r.rows.length - 1] as ListedFile)[0];
    }
  }

  async contentsOf(mapping: string, relPaths: readonly string[]): Promise<Map<string, string>> {
    const r = await this.pool.query<[string, string]>({
      text: 'SELECT rel_path, sha256 FROM files WHERE mapping = $1 AND rel_path = ANY($2::text[])',
      values: [mapping, relPaths],
      rowMode: 'array',
    });
    return new Map(r.rows);
  }

  async contents(mapping: string): Promise<Map<string, string>> {
    const r = await this.pool.query<[string, string]>({
      text: 'SELECT rel_path, sha256 FROM files WHERE mapping = $1',
      values: [mapping],
      rowMode: 'array',
    });
    return new Map(r.rows);
  }

  async put(rec: HashedFile): Promise<void> {
    await this.putAll([rec]);
  }

  /** Records of many files in one transaction (a scan's). */
  async putAll(recs: readonly HashedFile[]): Promise<void> {
    if (recs.length === 0) return;
    await inTransaction(this.pool, (c) => recordFiles(c, recs));
  }

  async remove(mapping: string, relPath: string): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query('DELETE FROM files WHERE mapping = $1 AND rel_path = $2', [mapping, relPath]);
      await c.query('DELETE FROM snapshots WHERE mapping = $1', [mapping]);
    });
  }

  async verify(mapping: string, sig: number, relPaths: readonly string[]): Promise<void> {
    if (relPaths.length === 0) return;
    await inTransaction(this.pool, async (c) => {
      for (let at = 0; at < relPaths.length; at += VERIFY_BATCH)
        await c.query('UPDATE files SET verified = $1 WHERE mapping = $2 AND rel_path = ANY($3::text[])', [
          sig,
          mapping,
          relPaths.slice(at, at + VERIFY_BATCH),
        ]);
    });
  }

  async snapshot(mapping: string): Promise<MappingSnapshot | undefined> {
    const r = await this.pool.query<{
      digest: string;
      output_dirs: string[];
      outputs_digest: string;
      outputs_stamp: string | null;
      folders: Array<[string, string]> | null;
    }>(
      'SELECT digest, output_dirs, outputs_digest, outputs_stamp, folders FROM snapshots WHERE mapping = $1',
      [mapping],
    );
    const row = r.rows[0];
    return (
      row && {
        digest: row.digest,
        outputDirs: row.output_dirs,
        outputsDigest: row.outputs_digest,
        ...(row.outputs_stamp !== null ? { outputsStamp: row.outputs_stamp } : {}),
        ...(row.folders !== null ? { folders: new Map(row.folders) } : {}),
      }
    );
  }

  async setSnapshot(mapping: string, snap: MappingSnapshot, files: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO snapshots (mapping, digest, output_dirs, outputs_digest, outputs_stamp, files, taken_at, folders)
       VALUES ($1, $2, $3, $4, $5, $6, now(), $7)
       ON CONFLICT (mapping) DO UPDATE SET digest = excluded.digest, output_dirs = excluded.output_dirs,
         outputs_digest = excluded.outputs_digest, outputs_stamp = excluded.outputs_stamp,
         files = excluded.files, taken_at = excluded.taken_at, folders = excluded.folders`,
      [
        mapping,
        snap.digest,
        JSON.stringify(snap.outputDirs),
        snap.outputsDigest,
        snap.outputsStamp ?? null,
        files,
        snap.folders ? JSON.stringify([...snap.folders]) : null,
      ],
    );
  }
}

/**
 * Records of files hashed (put, putAll; the ledger's deliveredInBulk), on a connection in a
 * transaction: their verified marks and their mappings' snapshots void.
 */
export async function recordFiles(c: pg.PoolClient, recs: readonly HashedFile[]): Promise<void> {
  for (const rec of recs)
    await c.query(
      `INSERT INTO files (mapping, rel_path, size, mtime_ms, sha256, seen_at, ino, ctime_ms)
       VALUES ($1, $2, $3, $4, $5, now(), $6, $7)
       ON CONFLICT (mapping, rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
         sha256 = excluded.sha256, seen_at = excluded.seen_at, verified = NULL, ino = excluded.ino,
         ctime_ms = excluded.ctime_ms`,
      [rec.mapping, rec.rel_path, rec.size, rec.mtime_ms, rec.sha256, rec.ino ?? null, rec.ctime_ms ?? null],
    );
  for (const m of new Set(recs.map((r) => r.mapping)))
    await c.query('DELETE FROM snapshots WHERE mapping = $1', [m]);
}
