import type pg from 'pg';
import type { ContentDigests, StoredDigest } from '../file-types.js';

// Content digests on PostgreSQL (see ContentDigests): written once per content, read by sha256.
// Shared by every pipeline of the database: a digest is a function of the bytes alone.

export class PgContentDigests implements ContentDigests {
  constructor(private readonly pool: pg.Pool) {}
  async get(sha256: string): Promise<StoredDigest | undefined> {
    const r = await this.pool.query<StoredDigest>(
      'SELECT sha256, digest, parts FROM content_digests WHERE sha256 = $1',
      [sha256],
    );
    return r.rows[0];
  }
  async known(sha256s: readonly string[]): Promise<Set<string>> {
    if (sha256s.length === 0) return new Set();
    const r = await this.pool.query<[string]>({
      text: 'SELECT sha256 FROM content_digests WHERE sha256 = ANY($1::text[])',
      values: [[...new Set(sha256s)]],
      rowMode: 'array',
    });
    return new Set(r.rows.map((row) => row[0]));
  }
  async put(rows: readonly StoredDigest[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(
      `INSERT INTO content_digests (sha256, digest, parts)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT (sha256) DO NOTHING`,
      [rows.map((r) => r.sha256), rows.map((r) => r.digest), rows.map((r) => r.parts)],
    );
  }
}
