import { createHash } from 'node:crypto';
import type { Mapping } from '../../manifest/sections/mapping.js';
import { extOf } from './fingerprint.js';
import type { ListedFolder } from './list-sources.js';
import { NUMBERS_PER_FILE, relPathIn } from './walk-folders.js';

// The digests the no-op fast path compares a source listing by: of each folder's own files, and of
// the whole listing, made from the walk's folders (list-sources.ts) without an object per file.

/** The folders of a listing: each file's folder (its path before the last '/', '' at the top). */
export interface ListingFolders {
  /** Folder names, in the order of their first file's path. */
  names: string[];
  /** Digest of each folder's own files (same index as `names`). */
  digests: string[];
}

/** Numbers a listing's digest holds of a file: size, mtime, inode, ctime, settings signature. */
const NUMBERS = 5;
/** Files whose numbers are fed to a folder's hash at a time. */
const RUN = 4096;

/**
 * The digest of one folder's files as listed: of each file's path, size, mtime, inode, ctime (a
 * rename over a file of the same size and mtime changes these: file-stamp.ts) and settings
 * signature, in path order. The paths are fed as text and the numbers as the bytes of a
 * Float64Array, a run of files at a time: 100,000s of mtimes and ctimes turned into decimal text
 * cost more than the walk's own work (issue 51). The bytes are the machine's (little-endian
 * everywhere Node.js runs); a state shared with a machine of the other order would only see its
 * snapshots differ, and look again.
 */
function folderDigest(
  m: Mapping,
  rel: string,
  names: readonly string[],
  stats: Float64Array,
  signature: (m: Mapping, ext: string) => number,
  run: Float64Array,
): string {
  const paths = createHash('sha256');
  const numbers = createHash('sha256');
  for (let from = 0; from < names.length; from += RUN) {
    const to = Math.min(names.length, from + RUN);
    let text = '';
    for (let k = from; k < to; k++) {
      const name = names[k]!;
      text += `${relPathIn(rel, name)}\0`;
      const at = (k - from) * NUMBERS;
      const of = k * NUMBERS_PER_FILE;
      run[at] = stats[of]!;
      run[at + 1] = stats[of + 1]!;
      run[at + 2] = stats[of + 2]!;
      run[at + 3] = stats[of + 3]!;
      run[at + 4] = signature(m, extOf(name));
    }
    paths.update(text);
    numbers.update(new Uint8Array(run.buffer, 0, (to - from) * NUMBERS * 8));
  }
  return createHash('sha256')
    .update(`${paths.digest('hex')}${numbers.digest('hex')}`)
    .digest('hex');
}

/**
 * Digest of each folder's own files (a folder whose digest is the snapshot's lists the same files,
 * sizes, mtimes, inodes, ctimes and settings as then), and of the whole listing: of its folders'
 * names and digests, so that a listing that is not the snapshot's is compared folder by folder
 * without a second pass over its files.
 */
export function listingDigests(
  m: Mapping,
  folders: readonly ListedFolder[],
  signature: (m: Mapping, ext: string) => number,
): ListingFolders & { digest: string } {
  const run = new Float64Array(RUN * NUMBERS);
  const names: string[] = [];
  const digests: string[] = [];
  const whole = createHash('sha256');
  for (const { rel, names: files, stats } of folders) {
    const digest = folderDigest(m, rel, files, stats, signature, run);
    names.push(rel);
    digests.push(digest);
    whole.update(`${rel}\0${digest}\n`);
  }
  return { names, digests, digest: whole.digest('hex') };
}
