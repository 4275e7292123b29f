import type { Recalled, SegmentMemory } from '../../state/types.js';

// What the memory holds for a document's segments (docs/memory.md): under each segment's own key (the
// service's translation for these settings, a person's edit of the output) and under its key without
// settings (a translation memory imported, translations aligned): a person's edit first, then what
// was brought in, then the service's.

export interface RecallKeys {
  key: string;
  /** Its key without translation settings (memory-key.ts anySettingsKey). */
  anyKey: string;
}

/** Each segment's remembered translation by its own key. */
export async function recallSegments(
  memory: Pick<SegmentMemory, 'recall'>,
  segments: readonly RecallKeys[],
): Promise<Map<string, Recalled>> {
  const found = await memory.recall(segments.flatMap((s) => [s.key, s.anyKey]));
  const out = new Map<string, Recalled>();
  for (const s of segments) {
    const own = found.get(s.key);
    const brought = found.get(s.anyKey);
    const chosen = own?.origin === 'reviewed' ? own : (brought ?? own);
    if (chosen) out.set(s.key, chosen);
  }
  return out;
}

/** The translations alone, as the segment job writes them. */
export function translationsOf(recalled: ReadonlyMap<string, Recalled>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, r] of recalled) out.set(k, r.translation);
  return out;
}
