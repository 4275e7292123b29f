import fs from 'node:fs';
import path from 'node:path';
import type { ImportedWording, SyncState } from '../state/types.js';
import type { OutputIndex } from './plan/output-index.js';

// Outputs whose wording a person gave after their delivery (`locsync xliff import`, docs/xliff.md):
// the memory holds it as reviewed wording, and the next plain `sync` writes these outputs again
// from the memory (nothing sent) although their sources did not change. Each is noted in the state
// (../state/wording-types.ts: on PostgreSQL every worker's sync sees it) with the done job that
// delivered it when the wording came in: it waits while that job is still its latest, so a delivery
// made since (by any run) settles it without the note being written again.
//
// Before, the notes were imported-wording.json in the local state folder: a file still there is
// carried into the state once and removed.

export type { ImportedWording };

/** Whether a note still waits: its job is still the output's latest delivery. */
const stillWaiting = async (index: OutputIndex, w: ImportedWording) =>
  (await index.doneOf(w.output))?.id === w.job_id;

const legacyFile = (stateFolder: string) => path.join(stateFolder, 'imported-wording.json');

/** The notes of an imported-wording.json left by an earlier locsync, moved into the state. */
async function carryLegacyNotes(state: SyncState, stateFolder: string): Promise<void> {
  const file = legacyFile(stateFolder);
  let list: ImportedWording[];
  try {
    list = JSON.parse(fs.readFileSync(file, 'utf8')) as ImportedWording[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    // Unreadable: it was written through a rename, so a torn file is not ours to guess at.
    list = [];
  }
  if (!state.importedWording) return;
  await state.importedWording.note(list.filter((w) => typeof w.output === 'string'));
  fs.rmSync(file, { force: true });
}

/** The outputs whose imported wording is not delivered yet, by output path. */
export async function waitingWording(
  state: SyncState,
  stateFolder: string,
  index: OutputIndex,
): Promise<Map<string, ImportedWording>> {
  await carryLegacyNotes(state, stateFolder);
  const out = new Map<string, ImportedWording>();
  for (const w of (await state.importedWording?.list()) ?? [])
    if (await stillWaiting(index, w)) out.set(w.output, w);
  return out;
}

/** Notes outputs that have wording to write, and settles the notes delivered since they were made. */
export async function noteImportedWording(
  state: SyncState,
  stateFolder: string,
  noted: readonly ImportedWording[],
  index: OutputIndex,
): Promise<void> {
  const store = state.importedWording;
  if (!store) throw new Error(`the state at ${state.location} keeps no imported wording`);
  await carryLegacyNotes(state, stateFolder);
  const settled: ImportedWording[] = [];
  for (const w of await store.list()) if (!(await stillWaiting(index, w))) settled.push(w);
  await store.settle(settled);
  await store.note(noted);
}
