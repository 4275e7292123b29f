// What poll mode keeps of the previous listing: per folder, a digest of its files (name, size,
// mtime) and the files themselves packed into one string and one Float64Array. Keeping the previous
// listing as 100,000 JS objects was most of poll mode's idle heap; packed, 100,000 files in 1,000
// folders are ~1,000 strings and arrays. A folder whose digest is unchanged is neither unpacked nor
// compared: only the folders that changed cost per-file work and allocations.

export interface PolledFile {
  readonly relPath: string;
  readonly size: number;
  readonly mtimeMs: number;
}

interface FolderRecord {
  /** Two independent 32-bit hashes of (name, size, mtime) of every file, in listing order. */
  readonly h1: number;
  readonly h2: number;
  /** The file names joined by NUL (a character no file name holds). */
  readonly names: string;
  /** size, mtimeMs of each file, in the order of `names`. */
  readonly stats: Float64Array;
}

/** Folder ('' for the source folder itself, '/' separators) → its record. */
export type FolderSnapshot = ReadonlyMap<string, FolderRecord>;

const folderOf = (relPath: string) => {
  const slash = relPath.lastIndexOf('/');
  return slash < 0 ? '' : relPath.slice(0, slash);
};

function mix(h: number, n: number, prime: number): number {
  return Math.imul(h ^ n, prime) >>> 0;
}

/** Both digests of a folder's files, computed on the listing as it is (nothing allocated per file). */
function digest(files: readonly PolledFile[], idx: readonly number[], nameStart: number): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (const i of idx) {
    const f = files[i]!;
    const p = f.relPath;
    for (let c = nameStart; c < p.length; c++) {
      const ch = p.charCodeAt(c);
      h1 = mix(h1, ch, 0x01000193);
      h2 = mix(h2, ch, 0x5bd1e995);
    }
    // A separator between names, then size and mtime (both may pass 2^32; mtime has fractions).
    const m = f.mtimeMs;
    const tail = (0x10000 ^ f.size ^ ((f.size / 0x100000000) << 20) ^ (((m * 1000) % 1000) << 10)) | 0;
    h1 = mix(mix(h1, m | 0, 0x01000193), tail ^ (m / 0x100000000), 0x01000193);
    h2 = mix(mix(h2, m | 0, 0x5bd1e995), tail ^ (m / 0x100000000), 0x5bd1e995);
  }
  return [h1, h2];
}

/**
 * Compare a listing (any order) with the previous snapshot: files new or changed (size or mtime),
 * files gone (including every file of a folder gone), and the snapshot of this listing.
 */
export function compareWithSnapshot(
  before: FolderSnapshot,
  files: readonly PolledFile[],
): { changed: string[]; gone: string[]; snapshot: FolderSnapshot } {
  const byFolder = new Map<string, number[]>();
  for (let i = 0; i < files.length; i++) {
    const folder = folderOf(files[i]!.relPath);
    const idx = byFolder.get(folder);
    if (idx) idx.push(i);
    else byFolder.set(folder, [i]);
  }
  const changed: string[] = [];
  const gone: string[] = [];
  const snapshot = new Map<string, FolderRecord>();
  for (const [folder, idx] of byFolder) {
    const nameStart = folder === '' ? 0 : folder.length + 1;
    const [h1, h2] = digest(files, idx, nameStart);
    const old = before.get(folder);
    if (old && old.h1 === h1 && old.h2 === h2 && old.stats.length === idx.length * 2) {
      snapshot.set(folder, old);
      continue;
    }
    const names = idx.map((i) => files[i]!.relPath.slice(nameStart));
    const stats = new Float64Array(idx.length * 2);
    idx.forEach((i, k) => {
      stats[2 * k] = files[i]!.size;
      stats[2 * k + 1] = files[i]!.mtimeMs;
    });
    snapshot.set(folder, { h1, h2, names: names.join('\0'), stats });
    const prev = new Map<string, number>();
    if (old) old.names.split('\0').forEach((name, k) => prev.set(name, k));
    names.forEach((name, k) => {
      const was = prev.get(name);
      if (
        was === undefined ||
        old!.stats[2 * was] !== stats[2 * k] ||
        old!.stats[2 * was + 1] !== stats[2 * k + 1]
      )
        changed.push(files[idx[k]!]!.relPath);
      prev.delete(name);
    });
    for (const name of prev.keys()) gone.push(folder === '' ? name : `${folder}/${name}`);
  }
  for (const [folder, old] of before) {
    if (byFolder.has(folder)) continue;
    for (const name of old.names.split('\0')) gone.push(folder === '' ? name : `${folder}/${name}`);
  }
  return { changed, gone, snapshot };
}
