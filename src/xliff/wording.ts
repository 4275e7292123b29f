import type { LoadedManifest } from '../manifest/types.js';
import type { SegmentOrigin, TranslationMemory } from '../state/memory-types.js';
import type { RunState } from '../sync/engine.js';
import { roundTripDocuments, type RoundTripDocument, type RoundTripUnit } from './units.js';
import type { Origin } from './writer.js';

// Whose wording each segment of an output is (docs/xliff.md, docs/review.md): the memory's origin
// of the segment's source and the output's wording of it. A person's (`reviewed`: an XLIFF import,
// a reviewer's correction the segment path took in, `memory align`), an imported memory's, or the
// service's; a segment the output has no wording for is untranslated. The XLIFF export states
// each unit by it; `status` and `review` count it per document.

export type OriginOf = (d: RoundTripDocument, u: RoundTripUnit) => Origin;

/**
 * The memory's origins of the documents' segments (target language, source, translation), a
 * person's winning. Only those segments are kept: the memory is read in pages, and one of a million
 * imported units stays on disk unless a document holds it.
 */
export async function memoryOrigins(
  memory: TranslationMemory,
  docs: readonly RoundTripDocument[],
  lang?: string,
): Promise<OriginOf> {
  const key = (targetLang: string, source: string, target: string) => `${targetLang}\0${source}\0${target}`;
  const origins = new Map<string, SegmentOrigin | undefined>();
  for (const d of docs)
    for (const u of d.units)
      if (u.target !== undefined) origins.set(key(d.targetLang, u.source, u.target), undefined);
  if (origins.size > 0)
    for await (const r of memory.rows(lang ? { targetLang: lang } : {})) {
      const k = key(r.target_lang, r.source, r.translation);
      // A person's wording wins over the service's for the same words.
      if (origins.has(k) && origins.get(k) !== 'reviewed') origins.set(k, r.origin);
    }
  return (d, u) => (u.target === undefined ? undefined : origins.get(key(d.targetLang, u.source, u.target)));
}

/** What a user reads for each kind of wording. */
export const WORDING_WORDS = {
  person: 'reviewed by a person',
  machine: 'machine translation',
  imported: 'from an imported memory',
  none: 'not translated',
} as const;

export type Wording = keyof typeof WORDING_WORDS;

export function wordingOf(origin: Origin, u: RoundTripUnit): Wording {
  if (u.target === undefined) return 'none';
  if (origin === 'reviewed') return 'person';
  return origin === 'imported' ? 'imported' : 'machine';
}

export interface DocumentWording {
  output: string;
  source: string;
  language: string;
  /** Segments per kind of wording (those with none left out). */
  counts: Partial<Record<Wording, number>>;
  /** Each segment's XLIFF unit id (the export's and the import's), where it sits and whose it is. */
  units: Array<{ id: string; index: number; where: string; wording: Wording }>;
}

/** "2 reviewed by a person, 5 machine translation" (the kinds a document has, in this order). */
export function formatWording(counts: DocumentWording['counts']): string {
  return (Object.keys(WORDING_WORDS) as Wording[])
    .filter((w) => counts[w])
    .map((w) => `${counts[w]} ${WORDING_WORDS[w]}`)
    .join(', ');
}

/**
 * Whose wording each segment is, for the round-trip documents `include` keeps (by source document
 * and target language; all of them when not given).
 */
export async function documentWording(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
  include?: (source: string, language: string) => boolean,
): Promise<DocumentWording[]> {
  const docs = await roundTripDocuments(loaded, state, include ? { include } : {});
  const originOf = await memoryOrigins(memory, docs);
  return docs.map((d) => {
    const units = d.units.map((u) => ({
      id: u.id,
      index: u.index,
      where: u.where,
      wording: wordingOf(originOf(d, u), u),
    }));
    const counts: DocumentWording['counts'] = {};
    for (const u of units) counts[u.wording] = (counts[u.wording] ?? 0) + 1;
    return { output: d.output, source: d.source, language: d.targetLang, counts, units };
  });
}

/**
 * The documents with a person's wording (the memory's reviewed rows name where each was taken):
 * status lists these, without reading every document of the pipeline.
 */
export async function peoplesDocuments(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
): Promise<DocumentWording[]> {
  const named = new Set<string>();
  for await (const r of memory.rows({ origins: ['reviewed'] }))
    if (r.document !== null) named.add(`${r.document}\0${r.target_lang}`);
  if (named.size === 0) return [];
  const docs = await documentWording(loaded, state, memory, (s, l) => named.has(`${s}\0${l}`));
  return docs.filter((d) => d.counts.person);
}
