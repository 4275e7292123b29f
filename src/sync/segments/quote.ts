import path from 'node:path';
import type { SegmentsQuote } from '../../billing/price.js';
import { priceUpload } from '../../billing/price.js';
import { DocumentFormatError } from '../../documents/errors.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { SyncState } from '../../state/types.js';
import type { PlannedAction } from '../plan/types.js';
import type * as DocumentSegmentsModule from './document-segments.js';
import { segmentPathRefusal } from './method-refusal.js';

// What a plan's segment-path translations will send, for its price ("3 new segments, 412 from
// memory: 240 characters"): each document's segments looked up in the segment memory, a segment
// counted once in the whole plan (the run sends it once), in plan order.

/** Quotes of the plan's segment-path translations, by output path. */
export async function quoteSegments(
  loaded: LoadedManifest,
  state: Pick<SyncState, 'segments'>,
  actions: readonly PlannedAction[],
): Promise<Map<string, SegmentsQuote>> {
  const quotes = new Map<string, SegmentsQuote>();
  const planned = new Set<string>();
  // The document layer is loaded only for a plan with segment-path work (a no-op has none).
  let reader: typeof DocumentSegmentsModule | undefined;
  for (const a of actions) {
    const settings = a.kind === 'translate' ? a.settings.request.segments?.settings : undefined;
    if (a.kind !== 'translate' || settings === undefined || segmentPathRefusal(a.source.ext)) continue;
    reader ??= await import('./document-segments.js');
    let read;
    try {
      read = await reader.readSegments(path.resolve(loaded.dir, a.source.path), a.source.ext, {
        sourceLang: a.settings.request.source_lang,
        targetLang: a.settings.request.target_lang,
        settings,
      });
    } catch (err) {
      // Unreadable: priced as the document path would (the run fails it with the reason).
      if (err instanceof DocumentFormatError) continue;
      throw err;
    }
    const known = (await state.segments?.lookup(read.segments.map((s) => s.key))) ?? new Map();
    const q: SegmentsQuote = {
      segments: read.segments.length,
      fromMemory: 0,
      sent: 0,
      characters: 0,
      documentPath: 0,
    };
    let text = 0;
    for (const s of read.segments) {
      text += s.characters;
      if (known.has(s.key) || planned.has(s.key)) {
        q.fromMemory++;
        continue;
      }
      planned.add(s.key);
      q.sent++;
      q.characters += s.characters;
    }
    q.documentPath = priceUpload(a.ref.file, text).billed;
    quotes.set(a.ref.output, q);
  }
  return quotes;
}
