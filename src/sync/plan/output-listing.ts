import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Mapping } from '../../manifest/sections/mapping.js';
import type { FoundFile } from './list-sources.js';
import { extOf } from './fingerprint.js';
import { outputFile } from '../../manifest/in-place-output.js';

// Whether outputs exist, answered from one listing per output folder instead of a stat per output,
// and the digests the no-op fast path compares: of a source listing, and of output folders: of
// their names, and of their stamps (inode, mtime, ctime), which a stat per folder reads where the
// names take a readdir per folder. A folder's times change whenever a name in it is added, removed
// or renamed, and its inode when it is replaced; a stamp vouches for the names read after it only
// once the folder's times have settled: a change within the clock tick of the one before (a few
// milliseconds here, 2 s on FAT) leaves them as they were, as git's racy-clean rule says of files.

/** How long a folder's times must lie in the past before its stamp vouches for its names. */
export const SETTLED_MS = 2000;

/** An output folder as read: its stamp (taken before its names) and its names (null: unreadable). */
export interface OutputDir {
  stamp: string;
  /** Its times lay SETTLED_MS or more in the past when the stamp was taken. */
  settled: boolean;
  names: Set<string> | null;
}

const MISSING = '\u0001missing';

/** An output folder's stamp (relative to `base`, or absolute), and whether it has settled. */
function stampOf(base: string, dir: string): Pick<OutputDir, 'stamp' | 'settled'> {
  // resolve, as the writer does: an absolute output pattern names its folder itself.
  let s: fs.BigIntStats | undefined;
  try {
    s = fs.statSync(path.resolve(base, dir), { bigint: true, throwIfNoEntry: false });
  } catch {
    return { stamp: '\u0001unreadable', settled: false }; // its names vouch for it, if anything
  }
  if (s === undefined) return { stamp: MISSING, settled: true };
  const before = Date.now() - SETTLED_MS;
  return {
    stamp: `${s.ino}\0${s.mtimeNs}\0${s.ctimeNs}`,
    settled: Number(s.mtimeMs) < before && Number(s.ctimeMs) < before,
  };
}

/** An output folder read now: its stamp, then its names. */
export function readOutputDir(base: string, dir: string): OutputDir {
  const stamp = stampOf(base, dir);
  try {
    return { ...stamp, names: new Set(fs.readdirSync(path.resolve(base, dir))) };
  } catch {
    return { ...stamp, names: null };
  }
}

/** Output folders listed once each (rendered outputs use '/' separators). */
export class OutputListing {
  readonly dirs = new Map<string, OutputDir>();

  constructor(private readonly base: string) {}

  has(part: string): boolean {
    const output = outputFile(part);
    const slash = output.lastIndexOf('/');
    const dir = slash === -1 ? '' : output.slice(0, slash);
    let read = this.dirs.get(dir);
    if (read === undefined) {
      read = readOutputDir(this.base, dir);
      this.dirs.set(dir, read);
    }
    return read.names !== null && read.names.has(output.slice(slash + 1));
  }
}

/** What a snapshot keeps of its output folders: see MappingSnapshot.outputsDigest, outputsStamp. */
export interface OutputsRecord {
  outputsDigest: string;
  /** Absent when some folder's times had not settled: only the names vouch for it. */
  outputsStamp?: string;
}

/** The record of some output folders: as in `listings`, or read now. A missing folder counts. */
export function outputsRecord(
  base: string,
  dirs: string[],
  listings?: Map<string, OutputDir>,
): OutputsRecord {
  const names = createHash('sha256');
  const stamps = createHash('sha256');
  let settled = true;
  for (const dir of dirs) {
    const read = listings?.get(dir) ?? readOutputDir(base, dir);
    names.update(`${dir}\0${read.names === null ? MISSING : [...read.names].sort().join('\0')}\n`);
    stamps.update(`${dir}\0${read.stamp}\n`);
    settled &&= read.settled;
  }
  return { outputsDigest: names.digest('hex'), ...(settled ? { outputsStamp: stamps.digest('hex') } : {}) };
}

/** The digest of some output folders' stamps, taken now (a stat per folder, no names read). */
export function outputsStamp(base: string, dirs: string[]): string {
  const h = createHash('sha256');
  for (const dir of dirs) h.update(`${dir}\0${stampOf(base, dir).stamp}\n`);
  return h.digest('hex');
}

/** The folders of a listing: each file's folder (its path before the last '/', '' at the top). */
export interface ListingFolders {
  /** Folder names, in order of first appearance. */
  names: string[];
  /** Digest of each folder's own files, as listingDigest of them (same index as `names`). */
  digests: string[];
  /** The index in `names` of each file's folder. */
  of: Uint32Array;
}

/** Numbers a listing's digest holds of a file: size, mtime, inode, ctime, settings signature. */
const NUMBERS = 5;
/** Files whose numbers are fed to a folder's hash at a time. */
const RUN = 4096;

/**
 * The digest of one folder's files as listed: of each file's path, size, mtime, inode, ctime (a
 * rename over a file of the same size and mtime changes these: file-stamp.ts) and settings
 * signature. The paths are fed as text and the numbers as the bytes of a Float64Array, a run of files
 * at a time: 100,000s of mtimes and ctimes turned into decimal text cost more than the walk's own
 * work (issue 51). The bytes are the machine's (little-endian everywhere Node.js runs); a state
 * shared with a machine of the other order would only see its snapshots differ, and look again.
 */
class FolderDigest {
  private readonly paths = createHash('sha256');
  private readonly numbers = createHash('sha256');

  /** Feeds a run of this folder's files: their paths ('\0' after each) and NUMBERS each of `run`. */
  update(paths: string, run: Float64Array, files: number): void {
    this.paths.update(paths);
    this.numbers.update(new Uint8Array(run.buffer, 0, files * NUMBERS * 8));
  }

  digest(): string {
    return createHash('sha256')
      .update(`${this.paths.digest('hex')}${this.numbers.digest('hex')}`)
      .digest('hex');
  }
}

/**
 * Digest of each folder's own files (a folder whose digest is the snapshot's lists the same files,
 * sizes, mtimes, inodes, ctimes and settings as then), and of the whole listing: of its folders'
 * names and digests, so that a listing that is not the snapshot's is compared folder by folder
 * without a second pass over its files.
 */
export function listingDigests(
  m: Mapping,
  files: FoundFile[],
  signature: (m: Mapping, ext: string) => number,
): ListingFolders & { digest: string } {
  const names: string[] = [];
  // A hash per folder, fed a run of its files at a time: no folder's text is held whole (the
  // snapshot is recorded at the end of a scan, when the scan's memory is at its peak).
  const hashes: FolderDigest[] = [];
  const index = new Map<string, number>();
  const of = new Uint32Array(files.length);
  const run = new Float64Array(RUN * NUMBERS);
  // Files of one folder mostly follow each other in path order (a subfolder's files may come
  // between): the folder is looked up only where it changes, not per file.
  let cur = -1;
  let curSlash = -2;
  let curName = '';
  let paths = '';
  let inRun = 0;
  const feed = () => {
    if (cur !== -1 && inRun > 0) hashes[cur]?.update(paths, run, inRun);
    paths = '';
    inRun = 0;
  };
  for (let i = 0; i < files.length; i++) {
    const f = files[i] as FoundFile;
    const slash = f.relPath.lastIndexOf('/');
    if (slash !== curSlash || (slash !== -1 && !f.relPath.startsWith(curName))) {
      feed();
      curSlash = slash;
      curName = slash === -1 ? '' : f.relPath.slice(0, slash);
      let k = index.get(curName);
      if (k === undefined) {
        k = names.push(curName) - 1;
        hashes.push(new FolderDigest());
        index.set(curName, k);
      }
      cur = k;
    }
    paths += `${f.relPath}\0`;
    const at = inRun * NUMBERS;
    run[at] = f.size;
    run[at + 1] = f.mtimeMs;
    run[at + 2] = f.ino;
    run[at + 3] = f.ctimeMs;
    run[at + 4] = signature(m, extOf(f.relPath));
    of[i] = cur;
    if (++inRun === RUN) feed();
  }
  feed();
  const digests = hashes.map((h) => h.digest());
  const whole = createHash('sha256');
  names.forEach((name, k) => whole.update(`${name}\0${digests[k]}\n`));
  return { names, digests, of, digest: whole.digest('hex') };
}
