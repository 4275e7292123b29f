import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { SegmentOrigin, TranslationMemory } from '../state/memory-types.js';
import type { RunState } from '../sync/engine.js';
import { PartFile } from '../util/part-file.js';
import { roundTripDocuments, type UnitFilter } from './units.js';
import { xliffFile, type Origin } from './writer.js';

// `locsync xliff export -o <file>` (docs/xliff.md): the segments of the pipeline's documents with
// their current wording, for a translator's CAT tool. Each unit's state says whose wording it is
// (the memory's origin of that source and translation). Written through a part file.

export interface XliffExportOptions extends UnitFilter {
  out: string;
  /** all (default) or unreviewed: units without a person's wording. */
  only: 'all' | 'unreviewed';
}

export interface XliffExportSummary {
  file: string;
  documents: number;
  units: number;
}

export async function exportXliff(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
  opts: XliffExportOptions,
): Promise<XliffExportSummary> {
  const docs = await roundTripDocuments(loaded, state, opts);
  const origins = new Map<string, SegmentOrigin>();
  for await (const r of memory.rows(opts.lang ? { targetLang: opts.lang } : {})) {
    const k = `${r.target_lang}\0${r.source}\0${r.translation}`;
    // A person's wording wins over the service's for the same words.
    if (origins.get(k) !== 'reviewed') origins.set(k, r.origin);
  }
  const originOf = (d: (typeof docs)[number], u: (typeof docs)[number]['units'][number]): Origin =>
    u.target === undefined ? undefined : origins.get(`${d.targetLang}\0${u.source}\0${u.target}`);
  let units = 0;
  const keep = (d: (typeof docs)[number], u: (typeof docs)[number]['units'][number]) => {
    const k = opts.only === 'all' || originOf(d, u) !== 'reviewed';
    if (k) units++;
    return k;
  };
  const text = xliffFile(docs, originOf, keep);
  const part = await PartFile.open(path.resolve(opts.out), String(process.pid), { exclusive: false });
  try {
    await part.handle.write(text);
    await part.commit();
  } catch (err) {
    await part.discard();
    throw err;
  }
  return { file: opts.out, documents: docs.length, units };
}
