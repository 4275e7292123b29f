import fs from 'node:fs';
import type { FileInventory } from '../../state/types.js';
import { matchesRecord } from '../plan/file-stamp.js';
import { sha256File } from '../plan/list-sources.js';

/**
 * Whether a source file still holds `sha256` (right before its job row is written, and right before
 * its upload): size, mtime, inode and ctime of its record as the fast path, else its hash. New content is never
 * uploaded (billed) under the old content's record.
 */
export async function sourceHolds(
  files: FileInventory,
  mapping: string,
  relPath: string,
  sha256: string,
  absPath: string,
): Promise<boolean> {
  let st: fs.Stats;
  try {
    st = fs.statSync(absPath);
  } catch {
    return false;
  }
  const known = await files.get(mapping, relPath);
  if (
    known &&
    known.sha256 === sha256 &&
    matchesRecord(st, known.size, known.mtime_ms, known.ino, known.ctime_ms)
  )
    return true;
  return (await sha256File(absPath).catch(() => undefined)) === sha256;
}
