import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Mapping } from '../../manifest/schema.js';
import type { FoundFile } from './list-sources.js';
import { extOf } from './fingerprint.js';

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

  has(output: string): boolean {
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

/** Digest of a listing: every file's path, size, mtime and settings signature. */
export function listingDigest(
  m: Mapping,
  files: FoundFile[],
  signature: (m: Mapping, ext: string) => number,
): string {
  const h = createHash('sha256');
  let chunk = '';
  for (const f of files) {
    chunk += `${f.relPath}\0${f.size}\0${f.mtimeMs}\0${signature(m, extOf(f.relPath))}\n`;
    if (chunk.length > 1 << 16) {
      h.update(chunk);
      chunk = '';
    }
  }
  return h.update(chunk).digest('hex');
}
