import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Mapping } from '../../manifest/sections/mapping.js';
import type { FoundFile } from './list-sources.js';
import { extOf } from './fingerprint.js';
import { outputFile } from '../../manifest/in-place-output.js';

// Whether outputs exist, answered from one listing per output folder instead of a stat per output,
// and the digests the no-op fast path compares: of a source listing, and of output folders' names.

/** The names in an output folder (relative to `base`, or absolute); null when it cannot be read. */
export function readOutputDir(base: string, dir: string): string[] | null {
  try {
    // resolve, as the writer does: an absolute output pattern names its folder itself.
    return fs.readdirSync(path.resolve(base, dir));
  } catch {
    return null;
  }
}

/** Output folders listed once each (rendered outputs use '/' separators). */
export class OutputListing {
  readonly dirs = new Map<string, Set<string> | null>();

  constructor(private readonly base: string) {}

  has(part: string): boolean {
    const output = outputFile(part);
    const slash = output.lastIndexOf('/');
    const dir = slash === -1 ? '' : output.slice(0, slash);
    let names = this.dirs.get(dir);
    if (names === undefined) {
      const listed = readOutputDir(this.base, dir);
      names = listed && new Set(listed);
      this.dirs.set(dir, names);
    }
    return names !== null && names.has(output.slice(slash + 1));
  }
}

/** Digest of the names in some output folders: from `listings`, or read now. A missing folder counts. */
export function outputsDigest(
  base: string,
  dirs: string[],
  listings?: Map<string, Set<string> | null>,
): string {
  const h = createHash('sha256');
  for (const dir of dirs) {
    const names: Iterable<string> | null = listings?.get(dir) ?? readOutputDir(base, dir);
    h.update(`${dir}\0${names === null ? '\u0001missing' : [...names].sort().join('\0')}\n`);
  }
  return h.digest('hex');
}

/**
 * What a listing's digest holds of a file: its path, size, mtime, inode, ctime (a rename over a file
 * of the same size and mtime changes these: file-stamp.ts) and settings signature.
 */
const entryOf = (m: Mapping, f: FoundFile, signature: (m: Mapping, ext: string) => number) =>
  `${f.relPath}\0${f.size}\0${f.mtimeMs}\0${f.ino}\0${f.ctimeMs}\0${signature(m, extOf(f.relPath))}\n`;

/** The folders of a listing: each file's folder (its path before the last '/', '' at the top). */
export interface ListingFolders {
  /** Folder names, in order of first appearance. */
  names: string[];
  /** Digest of each folder's own files, as listingDigest of them (same index as `names`). */
  digests: string[];
  /** The index in `names` of each file's folder. */
  of: Uint32Array;
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
  const hashes: Hash[] = [];
  const index = new Map<string, number>();
  const of = new Uint32Array(files.length);
  // Files of one folder mostly follow each other in path order (a subfolder's files may come
  // between): the folder is looked up only where it changes, not per file.
  let cur = -1;
  let curSlash = -2;
  let curName = '';
  let chunk = '';
  for (let i = 0; i < files.length; i++) {
    const f = files[i] as FoundFile;
    const slash = f.relPath.lastIndexOf('/');
    if (slash !== curSlash || (slash !== -1 && !f.relPath.startsWith(curName))) {
      if (cur !== -1) hashes[cur]?.update(chunk);
      curSlash = slash;
      curName = slash === -1 ? '' : f.relPath.slice(0, slash);
      let k = index.get(curName);
      if (k === undefined) {
        k = names.push(curName) - 1;
        hashes.push(createHash('sha256'));
        index.set(curName, k);
      }
      cur = k;
      chunk = '';
    }
    chunk += entryOf(m, f, signature);
    of[i] = cur;
    if (chunk.length > 1 << 16) {
      hashes[cur]?.update(chunk);
      chunk = '';
    }
  }
  if (cur !== -1) hashes[cur]?.update(chunk);
  const digests = hashes.map((h) => h.digest('hex'));
  const whole = createHash('sha256');
  names.forEach((name, k) => whole.update(`${name}\0${digests[k]}\n`));
  return { names, digests, of, digest: whole.digest('hex') };
}
