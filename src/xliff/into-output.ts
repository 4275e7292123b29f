import path from 'node:path';
import { fromTaggedText, openDocument, type Segment } from '../documents/index.js';
import type { LoadedManifest } from '../manifest/types.js';
import { writeTranslated } from '../sync/segments/write-output.js';
import type { RoundTripDocument } from './units.js';
import { outputFile } from '../manifest/in-place-output.js';

// A translator's wording written into a document-path output (a docx, pptx or xlsx the service
// translated whole; docs/xliff.md): the delivered file is read by the document layer and written
// again by its writer, each segment whose source has wording taken replaced by it and every other
// one as the service delivered it. Nothing is uploaded. The export paired the output's segments
// with the source's by position (units.ts), so the unit of each output segment is known.
//
// The output then differs from what its job wrote: like an edit a reviewer made by hand, it is a
// person's version, which a later translation of a changed source does not overwrite (it is put
// beside it: docs/review.md).

/**
 * Writes `wording` (tagged source → tagged translation) into the output of `doc`; answers whether
 * any was. `vet` sees the written part file before it replaces the output (the output checks, as a
 * sync's delivery runs them: it throws to refuse, and the output stays as it was).
 */
export async function writeIntoOutput(
  loaded: LoadedManifest,
  doc: RoundTripDocument,
  wording: ReadonlyMap<string, string>,
  vet: (partPath: string) => Promise<void>,
): Promise<boolean> {
  // An output that is gone (or no longer pairs with its source) has no segment to write into; the
  // wording stays in the memory, and the sync that delivers the output again replaces it.
  if (doc.units.every((u) => u.target === undefined)) return false;
  const outputAbs = path.resolve(loaded.dir, outputFile(doc.output));
  const format = path.extname(outputAbs).slice(1).toLowerCase();
  const opened = await openDocument(outputAbs, { format });
  const positions = new Map<Segment['id'], number>();
  let i = 0;
  for await (const s of opened.segments()) positions.set(s.id, i++);
  let written = 0;
  const translationOf = (s: Segment) => {
    const unit = doc.units[positions.get(s.id) ?? -1];
    // A unit without a target is not paired with the output (its structure differs): left alone.
    const t = unit?.target === undefined ? undefined : wording.get(unit.source);
    if (t === undefined || t === unit?.target) return undefined;
    written++;
    return fromTaggedText(t, s);
  };
  await writeTranslated({
    doc: opened,
    translationOf,
    outputAbs,
    format,
    targetLang: doc.targetLang,
    placeAt: async (dest) => dest,
    vet,
  });
  return written > 0;
}
