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
import { poolKey, RunCutter } from './batches.js';
import { PlannedRequests, type PlannedRun, type SentIn } from './planned-requests.js';
import { SegmentKeySet } from './key-set.js';
import { normaliseSegment, segmentKey } from './memory-key.js';

// What a plan's segment-path translations will send, for its price ("3 new segments, 412 from
// memory: 240 characters"): each document's segments looked up in the segment memory, a segment
// counted once in the whole plan (the run sends it once), in plan order; the segments sent cut into
// runs of neighbours as the run cuts a whole document, whatever batches the look-up takes, and the
// runs into requests, with their context, as the run's pool cuts them (./planned-requests.ts).

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
    /** Segments looked up in the memory at a time (SEGMENT_BATCH unless a test asks). */
    batchSize?: number;
  } = {},
): Promise<Map<string, SegmentsQuote>> {
  const quotes = new Map<string, SegmentsQuote>();
  // Each segment key sent, with the number of the request that sends it.
  const planned = new SegmentKeySet();
  // The texts sent that NFC changes, by key: a key alone tells their text only up to NFC.
  const unnormal = new Map<string, string>();
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
    const k = {
      sourceLang: a.settings.request.source_lang,
      targetLang: a.settings.request.target_lang,
      settings,
      read: a.settings.request.segments?.read,
    };
    const pool = poolKey(a.settings.request);
    // A neighbour is sent in a request when its text's key was placed there (the same text).
    const sentIn: SentIn = (c, request) => {
      const key = segmentKey(c, k.sourceLang, k.targetLang, settings);
      if (planned.get(key) !== request) return false;
      const sent = unnormal.get(key);
      return sent === undefined ? c === normaliseSegment(c) : c === sent;
    };
    const cutter = new RunCutter<PlannedRun<SegmentsQuote>>({
      start: () => requests.run(pool, q, sentIn),
      end: (run, neighbours) => run.end(neighbours),
    });
    try {
      // A batch at a time: a string file of 500,000 values is priced holding one batch of them.
      await reader.eachSegmentBatch(
        path.resolve(loaded.dir, a.source.path),
        a.source.ext,
        k,
        async (batch) => {
          const known = state.segments
            ? await recallSegments(state.segments, batch)
            : new Map<string, Recalled>();
          q.segments += batch.length;
          for (const s of batch) {
            text += s.characters;
            const kind = leverageOf(known.get(s.key), planned.has(s.key), !!edited?.has(s.key));
            countSegment(leverage, kind, s.characters);
            const run = cutter.next(s, kind === 'new');
            if (!run) {
              q.fromMemory++;
              continue;
            }
            planned.add(s.key, run.add(s.tagged));
            if (s.tagged !== normaliseSegment(s.tagged)) unnormal.set(s.key, s.tagged);
            if (s.segment) opts.sends?.(a.ref.output, s.segment);
            q.sent++;
            q.characters += s.characters;
          }
        },
        { keepSegments: opts.sends !== undefined, batchSize: opts.batchSize },
      );
    } catch (err) {
      // Unreadable: priced as the document path would (the run fails it with the reason).
      if (err instanceof DocumentFormatError) continue;
      throw err;
    } finally {
      cutter.finish();
    }
    q.documentPath = priceUpload(a.ref.file, text).billed;
    quotes.set(a.ref.output, q);
  }
  requests.finish();
  return quotes;
}
