// When a file is taken to be the one recorded without reading it: the same size and mtime (what an
// edit changes) and the same inode and ctime (what a rename over it changes: `mv r1.txt r2.txt`
// between files of equal size and mtime keeps both of the first). A record that holds no inode
// (written before inodes were kept) vouches for nothing: the file is hashed, so nothing is uploaded
// on a guess either way.

/** What a stat says of a file, as the scan keeps it. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly ctimeMs: number;
}

/** Is `f` the file recorded with these size, mtime, inode and ctime? */
export function matchesRecord(
  f: FileStamp,
  size: number,
  mtimeMs: number,
  ino: number | null,
  ctimeMs: number | null,
): boolean {
  return f.size === size && f.mtimeMs === mtimeMs && f.ino === ino && f.ctimeMs === ctimeMs;
}
