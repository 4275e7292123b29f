import fs from 'node:fs';
import type { FileInventory } from '../../state/types.js';
import { sha256File } from '../plan/list-sources.js';

/**
 * Whether a source file still holds `sha256` (right before its job row is written, and right before
 * its upload): size+mtime of its record as the fast path, else its hash. New content is never
 * uploaded (billed) under the old content's record.
 */
export async function sourceHolds(
  files: FileInventory,
  mapping: string,
  relPath: string,
  sha256: string,
  absPath: string,
): Promise<boolean> {
  let size: number;
  let mtimeMs: number;
  try {
    ({ size, mtimeMs } = fs.statSync(absPath));
  } catch {
    return false;
  }
  const known = await files.get(mapping, relPath);
  if (known && known.sha256 === sha256 && known.size === size && known.mtime_ms === mtimeMs) return true;
  return (await sha256File(absPath).catch(() => undefined)) === sha256;
}
