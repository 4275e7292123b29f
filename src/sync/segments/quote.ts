import path from 'node:path';
import type { SegmentsQuote } from '../../billing/price.js';
import { priceUpload } from '../../billing/price.js';
import { DocumentFormatError } from '../../documents/errors.js';
import type { Segment } from '../../documents/segment.js';
import type { LoadedManifest } from '../../manifest/types.js';
import { countSegment, emptyLeverage, memoryLeverage, type LeverageKind } from '../../billing/leverage.js';
import type { Recalled, SyncState } from '../../state/types.js';
import type { PlannedAction } from '../plan/types.js';
import type * as DocumentSegmentsModule from './document-segments.js';
import type * as PlannedReviewModule from './planned-review.js';
import { segmentPathRefusal } from './method-refusal.js';
import { recallSegments } from './recall.js';
import { batchTexts, poolKey, RUN_LIMITS } from './batches.js';
import { PlannedRequests } from './planned-requests.js';
import { SegmentKeySet } from './key-set.js';

// What a plan's segment-path translations will send, for its price ("3 new segments, 412 from
// memory: 240 characters"): each document's segments looked up in the segment memory, a segment
// counted once in the whole plan (the run sends it once), in plan order; the segments sent cut into
// requests, with their context, as the run's pool cuts them (./planned-requests.ts).

/**
 * Where a segment's translation comes from: a person's edit of the output, the memory (whose), this
 * run's first copy, or the service.
 */
function leverageOf(recalled: Recalled | undefined, planned: boolean, edited: boolean): LeverageKind {
  // The delivery stores a person's wording as reviewed before it looks the memory up.
  if (edited) return 'memory_reviewed';
  if (recalled) return memoryLeverage(recalled.origin);
  return planned ? 'repeated' : 'new';
}

/**
 * Quotes of the plan's segment-path translations, by output path. `overwriteEdits` (sync
 * --overwrite-edits): the run replaces people's edits, so their segments are priced as if unedited.
 */
export async function quoteSegments(
  loaded: LoadedManifest,
  state: Pick<SyncState, 'segments' | 'jobs'>,
  actions: readonly PlannedAction[],
  opts: {
    overwriteEdits?: boolean;
    /** Told of each segment the plan sends, with its action's output (`plan --why`). */
    sends?: (output: string, segment: Segment) => void;
  } = {},
): Promise<Map<string, SegmentsQuote>> {
  const quotes = new Map<string, SegmentsQuote>();
  const planned = new SegmentKeySet();
  const requests = new PlannedRequests<SegmentsQuote>((q, context) => {
    q.requests++;
    q.context = (q.context ?? 0) + context;
  });
  // The document layer is loaded only for a plan with segment-path work (a no-op has none).
  let reader: typeof DocumentSegmentsModule | undefined;
  let reviews: typeof PlannedReviewModule | undefined;
  for (const a of actions) {
    const settings = a.kind === 'translate' ? a.settings.request.segments?.settings : undefined;
    if (a.kind !== 'translate' || settings === undefined || segmentPathRefusal(a.source.ext)) continue;
    reader ??= await import('./document-segments.js');
    reviews ??= await import('./planned-review.js');
    const edited = opts.overwriteEdits
      ? undefined
      : (await reviews.plannedReview(loaded, state, a))?.reviewed;
    const leverage = emptyLeverage();
    const q: SegmentsQuote = {
      segments: 0,
      fromMemory: 0,
      sent: 0,
      characters: 0,
      documentPath: 0,
      requests: 0,
      context: 0,
      leverage,
    };
    let text = 0;
    try {
      // A batch at a time: a string file of 500,000 values is priced holding one batch of them.
      await reader.eachSegmentBatch(
        path.resolve(loaded.dir, a.source.path),
        a.source.ext,
        {
          sourceLang: a.settings.request.source_lang,
          targetLang: a.settings.request.target_lang,
          settings,
          read: a.settings.request.segments?.read,
        },
        async (batch) => {
          const known = state.segments
            ? await recallSegments(state.segments, batch)
            : new Map<string, Recalled>();
          q.segments += batch.length;
          const send: number[] = [];
          for (const [i, s] of batch.entries()) {
            text += s.characters;
            const kind = leverageOf(known.get(s.key), planned.has(s.key), !!edited?.has(s.key));
            countSegment(leverage, kind, s.characters);
            if (kind !== 'new') {
              q.fromMemory++;
              continue;
            }
            planned.add(s.key);
            if (s.segment) opts.sends?.(a.ref.output, s.segment);
            send.push(i);
            q.sent++;
            q.characters += s.characters;
          }
          // Handed on as the run hands them to its pool: runs of neighbours (a run across two
          // batches counts as two).
          for (const run of batchTexts(batch, send, RUN_LIMITS))
            requests.add(
              poolKey(a.settings.request),
              q,
              run.members.map((m) => (batch[m] as (typeof batch)[number]).tagged),
              run.neighbours,
            );
        },
        opts.sends !== undefined,
      );
    } catch (err) {
      // Unreadable: priced as the document path would (the run fails it with the reason).
      if (err instanceof DocumentFormatError) continue;
      throw err;
    }
    q.documentPath = priceUpload(a.ref.file, text).billed;
    quotes.set(a.ref.output, q);
  }
  requests.finish();
  return quotes;
}
