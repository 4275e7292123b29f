import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { outputFile } from '../../manifest/in-place-output.js';

// Whether outputs exist, answered from one listing per output folder instead of a stat per output,
// and the digests of output folders the no-op fast path compares (a source listing's are
// listing-digest.ts's): of their names, and of their stamps (inode, mtime, ctime), which a stat per
// folder reads where the names take a readdir per folder. A folder's times change whenever a name
// in it is added, removed or renamed, and its inode when it is replaced; a stamp vouches for the
// names read after it only once the folder's times have settled: a change within the clock tick of
// the one before (a few milliseconds here, 2 s on FAT) leaves them as they were, as git's
// racy-clean rule says of files.

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
