import type { SyncState } from '../state/types.js';
import type { PolledFile } from './poller.js';

/** The files the state recorded for a mapping (path, size, mtime): what the last scan saw. */
export async function recordedFiles(state: Pick<SyncState, 'files'>, mapping: string): Promise<PolledFile[]> {
  const out: PolledFile[] = [];
  for (const [relPath, size, mtimeMs] of (await state.files.listed(mapping)).values())
    out.push({ relPath, size, mtimeMs });
  return out;
}
