import type { StateStore } from '../state/store.js';
import type { PolledFile } from './poller.js';

/** The files the state recorded for a mapping (path, size, mtime): what the last scan saw. */
export function recordedFiles(state: StateStore, mapping: string): PolledFile[] {
  const out: PolledFile[] = [];
  for (const [relPath, size, mtimeMs] of state.filesOf(mapping).values())
    out.push({ relPath, size, mtimeMs });
  return out;
}
