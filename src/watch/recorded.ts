import type { SyncState } from '../state/types.js';
import type { PolledFile } from './poller.js';

/**
 * The files the state recorded for a mapping (path, size, mtime, inode, ctime): what the last scan
 * saw. An inode or ctime not recorded (an older state) is NaN, which matches nothing: the file is
 * looked at (hashed) again.
 */
export async function recordedFiles(state: Pick<SyncState, 'files'>, mapping: string): Promise<PolledFile[]> {
  const out: PolledFile[] = [];
  for (const [relPath, size, mtimeMs, , ino, ctimeMs] of (await state.files.listed(mapping)).values())
    out.push({ relPath, size, mtimeMs, ino: ino ?? NaN, ctimeMs: ctimeMs ?? NaN });
  return out;
}
