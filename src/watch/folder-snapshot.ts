// What poll mode keeps of the previous listing: per folder, a digest of its files (name, size,
// mtime, inode, ctime: a rename over a file of the same size and mtime changes the last two) and
// the files themselves packed into one string and one Float64Array. Keeping the previous listing as 100,000 JS objects was most of poll mode's idle heap; packed, 100,000 files in 1,000
// folders are ~1,000 strings and arrays. A folder whose digest is unchanged is neither unpacked nor
// compared: only the folders that changed cost per-file work and allocations. The digest is a sum
// over the files, so it does not depend on the order a folder lists them in (a directory read and the
// state's sorted record give the same digest).

import type { FileStamp } from '../sync/plan/file-stamp.js';
import { NUMBERS_PER_FILE, folderOfPath, relPathIn, type FolderFiles } from '../sync/plan/walk-folders.js';

export interface PolledFile extends FileStamp {
  readonly relPath: string;
}

interface FolderRecord {
  /** Two independent 32-bit hashes: each the sum of one hash of (name, stamp) per file. */
  readonly h1: number;
  readonly h2: number;
  /** The file names joined by NUL (a character no file name holds). */
  readonly names: string;
  /** size, mtimeMs, ino, ctimeMs of each file, in the order of `names`. */
  readonly stats: Float64Array;
}

/** Folder ('' for the source folder itself, '/' separators) → its record. */
export type FolderSnapshot = ReadonlyMap<string, FolderRecord>;

/** murmur3's finaliser: every bit of the input moves every bit of the output (sums stay strong). */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A number into a hash: it may pass 2^32 and have fractions (times in ms). */
function mixNumber(h: number, v: number, prime: number): number {
  const whole = Math.floor(v);
  h = Math.imul(h ^ ((whole % 0x100000000) | 0), prime);
  h = Math.imul(h ^ ((whole / 0x100000000) | 0), prime);
  return Math.imul(h ^ (((v - whole) * 0x100000000) | 0), prime);
}

/** One file's hash (name, then the NUMBERS_PER_FILE numbers at `at`); `seed` and `prime` make the two independent ones. */
function fileHash(name: string, stats: ArrayLike<number>, at: number, seed: number, prime: number): number {
  let h = seed;
  for (let c = 0; c < name.length; c++) h = Math.imul(h ^ name.charCodeAt(c), prime);
  h = Math.imul(h ^ 0x10000, prime);
  for (let k = 0; k < NUMBERS_PER_FILE; k++) h = mixNumber(h, stats[at + k]!, prime);
  return fmix(h);
}

/**
 * The same stamp at `i` of `a` and `j` of `b`. An unknown number (NaN: a record without an inode)
 * equals nothing, so such a file is looked at again.
 */
function sameStamp(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): boolean {
  for (let k = 0; k < NUMBERS_PER_FILE; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

function digest(files: FolderFiles): [number, number] {
  let h1 = 0;
  let h2 = 0;
  const { names, stats } = files;
  for (let k = 0; k < names.length; k++) {
    h1 = (h1 + fileHash(names[k]!, stats, NUMBERS_PER_FILE * k, 0x811c9dc5, 0x01000193)) >>> 0;
    h2 = (h2 + fileHash(names[k]!, stats, NUMBERS_PER_FILE * k, 0x9747b28c, 0x5bd1e995)) >>> 0;
  }
  return [h1, h2];
}

/**
 * One comparison with the previous snapshot, a folder at a time: files new or changed (size, mtime,
 * inode or ctime), files gone (including every file of a folder gone), and the snapshot of this listing.
 */
export class SnapshotComparison {
  readonly changed: string[] = [];
  readonly gone: string[] = [];
  private readonly next = new Map<string, FolderRecord>();
  /** Folders listed this round, with or without files. */
  private readonly listed = new Set<string>();

  constructor(private readonly before: FolderSnapshot) {}

  /** A folder as listed now (its files in any order; none when it holds no file). */
  folder(folder: string, files: FolderFiles): void {
    this.listed.add(folder);
    const old = this.before.get(folder);
    const n = files.names.length;
    if (n === 0) {
      if (old) for (const name of old.names.split('\0')) this.gone.push(relPathIn(folder, name));
      return;
    }
    const [h1, h2] = digest(files);
    if (old && old.h1 === h1 && old.h2 === h2 && old.stats.length === n * NUMBERS_PER_FILE) {
      this.next.set(folder, old);
      return;
    }
    const stats = Float64Array.from({ length: n * NUMBERS_PER_FILE }, (_, i) => files.stats[i]!);
    this.next.set(folder, { h1, h2, names: files.names.join('\0'), stats });
    const prev = new Map<string, number>();
    if (old) old.names.split('\0').forEach((name, k) => prev.set(name, k));
    files.names.forEach((name, k) => {
      const was = prev.get(name);
      if (was === undefined || !sameStamp(old!.stats, NUMBERS_PER_FILE * was, stats, NUMBERS_PER_FILE * k))
        this.changed.push(relPathIn(folder, name));
      prev.delete(name);
    });
    for (const name of prev.keys()) this.gone.push(relPathIn(folder, name));
  }

  /**
   * After the last folder: the folders of the previous snapshot not listed this time are gone with
   * their files, except those `unseen` says could not be looked at (kept as they were).
   */
  finish(unseen: (folder: string) => boolean = () => false): FolderSnapshot {
    for (const [folder, old] of this.before) {
      if (this.listed.has(folder)) continue;
      if (unseen(folder)) this.next.set(folder, old);
      else for (const name of old.names.split('\0')) this.gone.push(relPathIn(folder, name));
    }
    return this.next;
  }
}

/**
 * Compare a listing (any order) with the previous snapshot: files new or changed (size, mtime, inode
 * or ctime),
 * files gone (including every file of a folder gone), and the snapshot of this listing.
 */
export function compareWithSnapshot(
  before: FolderSnapshot,
  files: readonly PolledFile[],
): { changed: string[]; gone: string[]; snapshot: FolderSnapshot } {
  const byFolder = new Map<string, { names: string[]; stats: number[] }>();
  for (const f of files) {
    const folder = folderOfPath(f.relPath);
    let entry = byFolder.get(folder);
    if (!entry) byFolder.set(folder, (entry = { names: [], stats: [] }));
    entry.names.push(folder === '' ? f.relPath : f.relPath.slice(folder.length + 1));
    entry.stats.push(f.size, f.mtimeMs, f.ino, f.ctimeMs);
  }
  const cmp = new SnapshotComparison(before);
  for (const [folder, listed] of byFolder) cmp.folder(folder, listed);
  const snapshot = cmp.finish();
  return { changed: cmp.changed, gone: cmp.gone, snapshot };
}
