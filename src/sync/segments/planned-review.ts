import fs from 'node:fs';
import path from 'node:path';
import { DocumentFormatError } from '../../documents/errors.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { SyncState } from '../../state/types.js';
import type { PlannedAction, TranslateAction } from '../plan/types.js';
import { assessReviewed } from '../reviewed-segments.js';
import { readRecord, type SegmentConflict } from '../segments-written.js';
import { outputCondition } from '../run/edited-output.js';
import { readSegments } from './document-segments.js';
import { segmentPathRefusal } from './method-refusal.js';
import { outputFile } from '../../manifest/in-place-output.js';

// What `sync` will do with a person's work on the segment path, said by `plan` beforehand (the
// delivery's own assessment, ../reviewed-segments.ts, made without writing anything): for each
// planned translation of an output a person edited, or whose record holds a person's wording.

export interface PlannedReview {
  /** The new translation goes beside the output (a conflict, or an edit that cannot be matched). */
  beside: boolean;
  /** The reviewed segments whose source changes: the person's wording stays in the output. */
  conflicts: SegmentConflict[];
  /** Keys of the segments the delivery takes a person's wording for (stored as reviewed first). */
  reviewed: ReadonlySet<string>;
}

/** The planned reviews of a plan's segment-path translations, by output path. */
export async function plannedReviews(
  loaded: LoadedManifest,
  state: Pick<SyncState, 'segments' | 'jobs'>,
  actions: readonly PlannedAction[],
): Promise<Map<string, PlannedReview>> {
  const out = new Map<string, PlannedReview>();
  for (const a of actions) {
    if (a.kind !== 'translate') continue;
    const review = await plannedReview(loaded, state, a);
    if (review) out.set(a.ref.output, review);
  }
  return out;
}

/**
 * The planned review of one translation (undefined: not on the segment path, or no person's work in
 * its output). The planner asks it too, for a name with no room for the file beside it.
 */
export async function plannedReview(
  loaded: LoadedManifest,
  state: Pick<SyncState, 'segments' | 'jobs'>,
  a: Pick<TranslateAction, 'ref' | 'source' | 'settings'>,
): Promise<PlannedReview | undefined> {
  const memory = state.segments;
  const stateFolder = path.dirname(loaded.statePath);
  const settings = a.settings.request.segments?.settings;
  if (!memory || settings === undefined || segmentPathRefusal(a.source.ext)) return undefined;
  const outputAbs = path.resolve(loaded.dir, outputFile(a.ref.output));
  if (!fs.existsSync(outputAbs)) return undefined;
  const done = await state.jobs.latestDoneOf(a.ref.output);
  const previous = done && (await state.jobs.get(done.id));
  // Only an output with a person's work in it (edited, or a wording an earlier delivery took in).
  const record = readRecord(stateFolder, a.ref.output);
  const worded = !!record && (record.reviewed.length > 0 || record.conflicts.length > 0);
  if (!worded && (await outputCondition(outputAbs, previous)) !== 'edited') return undefined;
  const request = a.settings.request;
  let read;
  try {
    read = await readSegments(path.resolve(loaded.dir, a.source.path), a.source.ext, {
      sourceLang: request.source_lang,
      targetLang: request.target_lang,
      settings,
      read: request.segments?.read,
    });
  } catch (err) {
    // Unreadable: the run fails it with the reason, nothing is written.
    if (err instanceof DocumentFormatError) return undefined;
    throw err;
  }
  const review = await assessReviewed({
    stateFolder,
    outputAbs,
    outputRel: a.ref.output,
    format: a.source.ext,
    read: request.segments?.read,
    doc: read.doc,
    targetLang: a.ref.target,
    previous,
    overwriteEdits: false,
    memory,
    segments: read.segments,
    // Rows are what the delivery would store; the plan stores none.
    row: (key, source, translation) => ({
      key,
      source,
      translation,
      source_lang: null,
      target_lang: '',
      settings: '',
      origin: 'reviewed',
      run_id: 0,
    }),
  });
  return {
    beside: review.beside || review.held.size > 0,
    conflicts: [...review.conflicts],
    reviewed: new Set(review.rows.map((r) => r.key)),
  };
}
