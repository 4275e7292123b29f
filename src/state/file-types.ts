// The file inventory: the source files seen, the no-op fast paths' marks and listing snapshots, and
// the content digests by the sha256 of the bytes.
// Part of the state interface (./types.ts).

export interface FileRecord {
  mapping: string;
  rel_path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
  seen_at: string;
  /**
   * Set when a scan found every output of this content up to date (latest done job of each output made
   * from this very file, with this sha256 and settings): the settings signature it was checked with.
   * Cleared when the file's content changes or a done job is recorded for one of its outputs (see
   * JobLedger.done). A later scan with the same size, mtime and signature needs no job lookup at all.
   */
  verified: number | null;
  /**
   * The file's inode and ctime when it was hashed: what a rename over a file of the same size and
   * mtime changes. Null in records written before they were kept (such a file is hashed once more).
   */
  ino: number | null;
  ctime_ms: number | null;
}

/** What a scan records of a file it hashed (inode and ctime may be left out: recorded as unknown). */
export type HashedFile = Omit<FileRecord, 'seen_at' | 'verified' | 'ino' | 'ctime_ms'> &
  Partial<Pick<FileRecord, 'ino' | 'ctime_ms'>>;

/**
 * What a scan needs of every recorded file of a mapping, as read in bulk: size, mtime, verified
 * mark, inode and ctime, no sha256 (a file whose mark matches needs no content at all; see
 * FileInventory.filesOf).
 */
export type ListedFile = readonly [
  relPath: string,
  size: number,
  mtimeMs: number,
  verified: number | null,
  ino: number | null,
  ctimeMs: number | null,
];

/** See FileInventory.mappingSnapshot. */
export interface MappingSnapshot {
  /** Digest of the source listing: every file's path, size, mtime, inode, ctime and settings signature. */
  digest: string;
  /** The output folders of the mapping's outputs (relative to the manifest folder). */
  outputDirs: string[];
  /** Digest of the names in those folders when every output was there. */
  outputsDigest: string;
  /**
   * Digest of those folders' stamps (inode, mtime, ctime) taken before their names were read, when
   * every folder's times had settled (../sync/plan/output-listing.ts): while it is the same, so are
   * the names. Absent when some had not, and in snapshots recorded before it existed.
   */
  outputsStamp?: string;
  /**
   * Digest of each source folder's own files (folder: the path before the last '/', '' at the top),
   * as `digest` is of them all: a scan whose listing changed in some folders takes the others as the
   * no-op does. Absent in snapshots recorded before it existed.
   */
  folders?: ReadonlyMap<string, string>;
}

/** The source files seen, their content, and the no-op fast paths' marks. */
export interface FileInventory {
  get(mapping: string, relPath: string): Promise<FileRecord | undefined>;
  /** Every recorded file of a mapping, by relative path, without content hashes (the bulk read). */
  listed(mapping: string): Promise<Map<string, ListedFile>>;
  /**
   * The recorded files of a mapping that lie directly in one of `folders` (a file's folder: its path
   * before the last '/', '' at the top), as `listed` (a scan that needs only the folders that changed).
   */
  listedIn(mapping: string, folders: readonly string[]): Promise<Map<string, ListedFile>>;
  /**
   * Every recorded file of a mapping as `listed` has them, a page at a time (by path, in the
   * backend's order): a scan of 100,000s of files holds a page of records at once, not a map of all.
   */
  listedPages(mapping: string): AsyncIterable<ListedFile[]>;
  /** The recorded sha256 of every file of a mapping, by relative path (when many are needed). */
  contents(mapping: string): Promise<Map<string, string>>;
  /** The recorded sha256 of these files of a mapping (those recorded), in one call. */
  contentsOf(mapping: string, relPaths: readonly string[]): Promise<Map<string, string>>;
  /** A file was hashed: recorded (its verified mark and its mapping's snapshot are void). */
  put(rec: HashedFile): Promise<void>;
  /** Files hashed by one scan, recorded as put() records each, in one transaction. */
  putAll(recs: readonly HashedFile[]): Promise<void>;
  /** A source is gone. */
  remove(mapping: string, relPath: string): Promise<void>;
  /** These files' outputs were all found up to date under the settings signature `sig`. */
  verify(mapping: string, sig: number, relPaths: readonly string[]): Promise<void>;
  snapshot(mapping: string): Promise<MappingSnapshot | undefined>;
  setSnapshot(mapping: string, snap: MappingSnapshot, files: number): Promise<void>;
}

/**
 * A content digest as recorded (src/documents/digest): by the sha256 of the bytes it was made from,
 * so it is never out of date and serves every file, job and copy with those bytes.
 */
export interface StoredDigest {
  sha256: string;
  /** The content digest; '' when the file had none (its format has no digest, or it could not be read). */
  digest: string;
  /** JSON of the per-part summary (PartDigest[]) that `plan --why` compares. */
  parts: string;
}

/** Content digests by the sha256 of the bytes (see StoredDigest). */
export interface ContentDigests {
  get(sha256: string): Promise<StoredDigest | undefined>;
  /** Which of these contents have a digest recorded (one call per scan, not one per file). */
  known(sha256s: readonly string[]): Promise<Set<string>>;
  put(rows: readonly StoredDigest[]): Promise<void>;
}
