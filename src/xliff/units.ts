import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DocumentFormatError, taggedText, type FormatOptions } from '../documents/index.js';
import type { LoadedManifest } from '../manifest/types.js';
import { firstDifference, outputSegments, pairsWithSource } from '../memory/align.js';
import { makePlan, type RunState } from '../sync/engine.js';
import type { TranslateAction } from '../sync/plan/types.js';
import { readSegments } from '../sync/segments/document-segments.js';
import { outputFile } from '../manifest/in-place-output.js';

// The units of a translator's round trip (docs/xliff.md): each segment of each source document the
// plan translates, with the output's wording at its place (read by the document layer, as `memory
// align` pairs them) and a stable id made of the document, the target language and the tagged
// source. The import recomputes the ids from the current sources: a unit whose source changed since
// the export no longer has its id, and is refused.

export interface RoundTripUnit {
  id: string;
  /** 1-based position in the document. */
  index: number;
  where: string;
  /** The source in the pipeline's tagged form (src/documents/tagged.ts). */
  source: string;
  /** The output's wording at this place, tagged; undefined when the output is missing or parts. */
  target: string | undefined;
}

export interface RoundTripDocument {
  source: string;
  output: string;
  mapping: string;
  /**
   * How the output is made: `segments` (written from the memory by a sync) or `document` (the
   * service's whole file, into which an import writes a translator's wording: into-output.ts).
   */
  method: 'segments' | 'document';
  sourceLang: string | null;
  targetLang: string;
  /** How the source is read (a CSV file's columns): an older version of it is read the same way. */
  read?: FormatOptions | undefined;
  units: RoundTripUnit[];
}

export function unitId(document: string, target: string, tagged: string): string {
  return 'u' + createHash('sha256').update(`${document}\0${target}\0${tagged}`).digest('hex').slice(0, 16);
}

async function documentUnits(loaded: LoadedManifest, a: TranslateAction): Promise<RoundTripDocument> {
  const request = a.settings.request;
  const read = await readSegments(path.resolve(loaded.dir, a.source.path), a.source.ext, {
    sourceLang: request.source_lang,
    targetLang: request.target_lang,
    settings: '',
    read: request.segments?.read,
  });
  const outputAbs = path.resolve(loaded.dir, outputFile(a.ref.output));
  let output;
  if (fs.existsSync(outputAbs)) {
    try {
      output = await outputSegments(outputAbs, a.source.ext, a.ref.target, request.segments?.read);
    } catch (err) {
      if (!(err instanceof DocumentFormatError)) throw err;
    }
  }
  const sources = read.segments.map((s) => s.segment);
  const paired = output && firstDifference(sources, output) === undefined ? output : undefined;
  return {
    source: a.source.path,
    output: a.ref.output,
    mapping: a.ref.mapping,
    method: request.segments ? 'segments' : 'document',
    sourceLang: request.source_lang?.toLowerCase() ?? null,
    targetLang: a.ref.target,
    ...(request.segments?.read ? { read: request.segments.read } : {}),
    units: read.segments.map((s, i) => {
      const o = paired?.[i];
      return {
        id: unitId(a.source.path, a.ref.target, s.tagged),
        index: i + 1,
        where: s.segment.where,
        source: s.tagged,
        target: o ? taggedText(o) : undefined,
      };
    }),
  };
}

export interface UnitFilter {
  mapping?: string;
  lang?: string;
  /** Only the documents this keeps (by source document and target language): the others are not read. */
  include?: (source: string, language: string) => boolean;
}

/** The round-trip documents of the plan: segment documents whose output has the source's format. */
export async function roundTripDocuments(
  loaded: LoadedManifest,
  state: RunState,
  filter: UnitFilter,
): Promise<RoundTripDocument[]> {
  // Every output, up to date or not: the export lists what is there now.
  const { plan } = await makePlan({ loaded, state, options: { retranslate: 'all' } });
  const docs: RoundTripDocument[] = [];
  for (const a of plan.actions) {
    if (a.kind !== 'translate') continue;
    if (filter.mapping !== undefined && a.ref.mapping !== filter.mapping) continue;
    if (filter.lang !== undefined && a.ref.target !== filter.lang) continue;
    if (!pairsWithSource(a)) continue;
    if (filter.include && !filter.include(a.source.path, a.ref.target)) continue;
    docs.push(await documentUnits(loaded, a));
  }
  return docs;
}
