import type Database from 'better-sqlite3';
import { VERIFY_BATCH } from '../transitions.js';
import type { FileRecord, HashedFile, ListedFile, MappingSnapshot } from '../file-types.js';
import type { FileRows } from './inventory.js';

// state.db's files and snapshots tables: every source file seen (size, mtime, inode, sha256, the
// verified mark) and, per mapping, the listing snapshot that vouches for all its outputs. A change
// of a file record drops its mapping's snapshot in the same transaction.

const now = () => new Date().toISOString();

const LISTED_COLUMNS = 'rel_path, size, mtime_ms, verified, ino, ctime_ms';

export class SqliteFileRows implements FileRows {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      getFile: db.prepare<[string, string], FileRecord>(
        'SELECT * FROM files WHERE mapping = ? AND rel_path = ?',
      ),
      filesOf: db
        .prepare<[string], unknown[]>(`SELECT ${LISTED_COLUMNS} FROM files WHERE mapping = ?`)
        .raw(true),
      // A folder's files: the key range of paths starting with `folder/` (BINARY collation compares
      // bytes, and '0' follows '/'), those in its subfolders dropped by the caller.
      filesUnder: db
        .prepare<[string, string, string], unknown[]>(
          `SELECT ${LISTED_COLUMNS} FROM files WHERE mapping = ? AND rel_path > ? AND rel_path < ?`,
        )
        .raw(true),
      filesAtTop: db
        .prepare<[string], unknown[]>(
          `SELECT ${LISTED_COLUMNS} FROM files WHERE mapping = ? AND instr(rel_path, '/') = 0`,
        )
        .raw(true),
      filesFirst: db
        .prepare<[string, number], unknown[]>(
          `SELECT ${LISTED_COLUMNS} FROM files WHERE mapping = ? ORDER BY rel_path LIMIT ?`,
        )
        .raw(true),
      filesAfter: db
        .prepare<[string, string, number], unknown[]>(
          `SELECT ${LISTED_COLUMNS} FROM files WHERE mapping = ? AND rel_path > ? ORDER BY rel_path LIMIT ?`,
        )
        .raw(true),
      shasOf: db
        .prepare<[string], unknown[]>('SELECT rel_path, sha256 FROM files WHERE mapping = ?')
        .raw(true),
      shasOfEach: db
        .prepare<[string, string], unknown[]>(
          'SELECT rel_path, sha256 FROM files WHERE mapping = ? AND rel_path IN (SELECT value FROM json_each(?))',
        )
        .raw(true),
      putFile: db.prepare(
        `INSERT INTO files (mapping, rel_path, size, mtime_ms, sha256, seen_at, ino, ctime_ms)
         VALUES (@mapping, @rel_path, @size, @mtime_ms, @sha256, @seen_at, @ino, @ctime_ms)
         ON CONFLICT (mapping, rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256,
           seen_at = excluded.seen_at, verified = NULL, ino = excluded.ino, ctime_ms = excluded.ctime_ms`,
      ),
      verifyFiles: db.prepare(
        'UPDATE files SET verified = ? WHERE mapping = ? AND rel_path IN (SELECT value FROM json_each(?))',
      ),
      unverifyFile: db.prepare(
        'UPDATE files SET verified = NULL WHERE mapping = ? AND rel_path = ? AND verified IS NOT NULL',
      ),
      unverifyAll: db.prepare('UPDATE files SET verified = NULL WHERE verified IS NOT NULL'),
      deleteFile: db.prepare('DELETE FROM files WHERE mapping = ? AND rel_path = ?'),
      getSnapshot: db.prepare<
        [string],
        {
          digest: string;
          output_dirs: string;
          outputs_digest: string;
          outputs_stamp: string | null;
          folders: string | null;
        }
      >(
        'SELECT digest, output_dirs, outputs_digest, outputs_stamp, folders FROM snapshots WHERE mapping = ?',
      ),
      putSnapshot: db.prepare(
        `INSERT INTO snapshots (mapping, digest, output_dirs, outputs_digest, outputs_stamp, files, taken_at, folders)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (mapping) DO UPDATE SET digest = excluded.digest, output_dirs = excluded.output_dirs,
           outputs_digest = excluded.outputs_digest, outputs_stamp = excluded.outputs_stamp,
           files = excluded.files, taken_at = excluded.taken_at, folders = excluded.folders`,
      ),
      dropSnapshot: db.prepare('DELETE FROM snapshots WHERE mapping = ?'),
      dropSnapshots: db.prepare('DELETE FROM snapshots'),
    };
  }

  getFile(mapping: string, relPath: string): FileRecord | undefined {
    return this.stmts.getFile.get(mapping, relPath);
  }
  /**
   * Every file recorded for a mapping, by relative path: one query, the raw rows kept as they are (a
   * scan reads 100,000s of them; no object per row, no sha256 string per row).
   */
  filesOf(mapping: string): Map<string, ListedFile> {
    const out = new Map<string, ListedFile>();
    for (const r of this.stmts.filesOf.all(mapping) as unknown as ListedFile[]) out.set(r[0], r);
    return out;
  }
  /** The files recorded directly in these folders of a mapping (see FileInventory.listedIn). */
  filesIn(mapping: string, folders: readonly string[]): Map<string, ListedFile> {
    const out = new Map<string, ListedFile>();
    for (const folder of new Set(folders)) {
      if (folder === '') {
        for (const r of this.stmts.filesAtTop.all(mapping) as unknown as ListedFile[]) out.set(r[0], r);
        continue;
      }
      const prefix = folder + '/';
      for (const r of this.stmts.filesUnder.all(mapping, prefix, folder + '0') as unknown as ListedFile[])
        if (r[0].indexOf('/', prefix.length) === -1) out.set(r[0], r);
    }
    return out;
  }
  /** The recorded sha256 of every file of a mapping, by relative path (when many are needed). */
  shasOf(mapping: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.stmts.shasOf.iterate(mapping) as IterableIterator<[string, string]>)
      out.set(r[0], r[1]);
    return out;
  }
  /** The recorded files of a mapping after `after` in path order, at most `limit` (a page of them). */
  filesAfter(mapping: string, after: string | undefined, limit: number): ListedFile[] {
    return (after === undefined
      ? this.stmts.filesFirst.all(mapping, limit)
      : this.stmts.filesAfter.all(mapping, after, limit)) as unknown as ListedFile[];
  }
  /** The recorded sha256 of these files of a mapping (those recorded). */
  shasOfEach(mapping: string, relPaths: readonly string[]): Map<string, string> {
    return new Map(this.stmts.shasOfEach.all(mapping, JSON.stringify(relPaths)) as Array<[string, string]>);
  }
  /** Record that these files' outputs were all found up to date under `sig` (see FileRecord.verified). */
  verifyFiles(mapping: string, sig: number, relPaths: readonly string[]): void {
    if (relPaths.length === 0) return;
    this.db.transaction(() => {
      for (let at = 0; at < relPaths.length; at += VERIFY_BATCH)
        this.stmts.verifyFiles.run(sig, mapping, JSON.stringify(relPaths.slice(at, at + VERIFY_BATCH)));
    })();
  }
  putFile(rec: HashedFile & { seen_at?: string }): void {
    this.putFiles([rec]);
  }
  /** Records of many files in one transaction (a scan's: one commit, not one per file). */
  putFiles(recs: ReadonlyArray<HashedFile & { seen_at?: string }>): void {
    if (recs.length === 0) return;
    const at = now();
    this.db.transaction(() => {
      const mappings = new Set<string>();
      for (const rec of recs) {
        this.stmts.putFile.run({ ino: null, ctime_ms: null, ...rec, seen_at: rec.seen_at ?? at });
        mappings.add(rec.mapping);
      }
      for (const m of mappings) this.stmts.dropSnapshot.run(m);
    })();
  }
  deleteFile(mapping: string, relPath: string): void {
    this.db.transaction(() => {
      this.stmts.deleteFile.run(mapping, relPath);
      this.stmts.dropSnapshot.run(mapping);
    })();
  }

  /**
   * Recorded when a scan found every output of every file of a mapping up to date: the digest of its
   * source listing (every file's path, size, mtime and settings signature) and of its output folders'
   * listings. A scan whose source listing has the same digest knows that without reading a file
   * record or a job: only the outputs must still exist, and when the output folders list the same
   * names as then, they do. Dropped when a file record changes and whenever an output is written
   * (outputRewritten).
   */
  mappingSnapshot(mapping: string): MappingSnapshot | undefined {
    const r = this.stmts.getSnapshot.get(mapping);
    return (
      r && {
        digest: r.digest,
        outputDirs: JSON.parse(r.output_dirs) as string[],
        outputsDigest: r.outputs_digest,
        ...(r.outputs_stamp !== null ? { outputsStamp: r.outputs_stamp } : {}),
        ...(r.folders !== null ? { folders: new Map(JSON.parse(r.folders) as Array<[string, string]>) } : {}),
      }
    );
  }
  setMappingSnapshot(mapping: string, snap: MappingSnapshot, files: number): void {
    this.stmts.putSnapshot.run(
      mapping,
      snap.digest,
      JSON.stringify(snap.outputDirs),
      snap.outputsDigest,
      snap.outputsStamp ?? null,
      files,
      now(),
      snap.folders ? JSON.stringify([...snap.folders]) : null,
    );
  }

  /**
   * An output of `source` now holds a new translation: nothing may vouch for it any more. Which
   * mapping's snapshot vouches for it is not known here, so none stands; the source file's own
   * verified mark is cleared, and every mark when `everyMark` (the output's previous translation came
   * from another source file: the next scan checks every file again). Called inside the job's
   * transaction.
   */
  outputRewritten(source: { mapping: string; rel_path: string } | undefined, everyMark: boolean): void {
    this.stmts.dropSnapshots.run();
    if (!source) return;
    this.stmts.unverifyFile.run(source.mapping, source.rel_path);
    if (everyMark) this.stmts.unverifyAll.run();
  }
}
