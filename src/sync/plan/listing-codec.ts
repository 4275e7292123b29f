import path from 'node:path';
import {
  WalkedFile,
  type FoundFile,
  type ListedTree,
  type ListOptions,
  type ScanProblem,
} from './list-sources.js';
import { extOf } from './ext.js';
import { digestOfListing } from './output-listing.js';

// A source listing as it crosses from a worker thread (listing-worker.ts) to the main thread: the
// relative paths as one UTF-8 buffer, the numbers of each file (size, mtime, inode, ctime) as one
// Float64Array. Both are transferred, not copied; the main thread makes file objects of them only
// when it looks at files one by one (not on the no-op path).

/** What the worker lists: a mapping's source folder with its rules (as listSourceFiles takes them). */
export interface ListingJob {
  src: string;
  include: string[];
  ignore: string[];
  opts: ListOptions;
}

export interface EncodedListing {
  count: number;
  /** The relative paths, in path order, each followed by a NUL. */
  names: Uint8Array<ArrayBuffer>;
  /** size, mtime, inode, ctime of each file (4 numbers a file, same order). */
  stats: Float64Array<ArrayBuffer>;
  /** The extensions the files have (the listing's digest needs their settings signatures). */
  exts: string[];
  unsupported: ScanProblem[];
  problems: ScanProblem[];
}

/** The settings signature of each extension of the listing, for its digest. */
export interface DigestRequest {
  signatures: Record<string, number>;
}

export function encodeListing(listed: ListedTree): EncodedListing {
  const { files } = listed;
  const stats = new Float64Array(files.length * 4);
  const exts = new Set<string>();
  let text = '';
  for (let i = 0; i < files.length; i++) {
    const f = files[i] as FoundFile;
    text += f.relPath + '\0';
    stats[i * 4] = f.size;
    stats[i * 4 + 1] = f.mtimeMs;
    stats[i * 4 + 2] = f.ino;
    stats[i * 4 + 3] = f.ctimeMs;
    exts.add(extOf(f.relPath));
  }
  return {
    count: files.length,
    // Its own buffer (a Buffer may be a slice of a shared pool, which cannot be transferred alone).
    names: new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>,
    stats,
    exts: [...exts],
    unsupported: listed.unsupported,
    problems: listed.problems,
  };
}

/** The files of an encoded listing of the source folder `src`. */
export function decodeFiles(src: string, e: EncodedListing): FoundFile[] {
  const rels = Buffer.from(e.names.buffer, e.names.byteOffset, e.names.byteLength)
    .toString('utf8')
    .split('\0');
  const root = src.endsWith(path.sep) ? src : src + path.sep;
  const files = new Array<FoundFile>(e.count);
  // Files of a folder follow each other: their folder's path is made once, as the walk makes it.
  let dir = '';
  let prefix = root;
  for (let i = 0, s = e.stats; i < e.count; i++) {
    const rel = rels[i] as string;
    const slash = rel.lastIndexOf('/');
    const relDir = slash === -1 ? '' : rel.slice(0, slash);
    if (relDir !== dir) {
      dir = relDir;
      prefix = relDir === '' ? root : root + relDir.split('/').join(path.sep) + path.sep;
    }
    files[i] = new WalkedFile(
      rel,
      s[i * 4]!,
      s[i * 4 + 1]!,
      s[i * 4 + 2]!,
      s[i * 4 + 3]!,
      prefix,
      rel.slice(slash + 1),
    );
  }
  return files;
}

/** The listing's digest (output-listing.ts's listingDigest), with the signatures sent by the main thread. */
export function listingDigestOf(files: readonly FoundFile[], req: DigestRequest): string {
  return digestOfListing(files, (ext) => req.signatures[ext] ?? NaN);
}
