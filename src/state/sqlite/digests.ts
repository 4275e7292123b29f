import type Database from 'better-sqlite3';
import type { ContentDigests, StoredDigest } from '../file-types.js';

// Content digests on SQLite (see ContentDigests): written once per content, read by sha256.

/** Shas asked for in one statement (SQLite's default limit of bound variables is 32766). */
const CHUNK = 500;

export class SqliteContentDigests implements ContentDigests {
  private readonly getStmt;
  private readonly putStmt;
  constructor(private readonly db: Database.Database) {
    this.getStmt = db.prepare<[string], StoredDigest>(
      'SELECT sha256, digest, parts FROM content_digests WHERE sha256 = ?',
    );
    this.putStmt = db.prepare<[string, string, string]>(
      'INSERT INTO content_digests (sha256, digest, parts) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
    );
  }
  async get(sha256: string): Promise<StoredDigest | undefined> {
    return this.getStmt.get(sha256);
  }
  async known(sha256s: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < sha256s.length; i += CHUNK) {
      const chunk = sha256s.slice(i, i + CHUNK);
      const rows = this.db
        .prepare<string[], { sha256: string }>(
          `SELECT sha256 FROM content_digests WHERE sha256 IN (${chunk.map(() => '?').join(',')})`,
        )
        .all(...chunk);
      for (const r of rows) out.add(r.sha256);
    }
    return out;
  }
  async put(rows: readonly StoredDigest[]): Promise<void> {
    this.db.transaction(() => {
      for (const r of rows) this.putStmt.run(r.sha256, r.digest, r.parts);
    })();
  }
}
