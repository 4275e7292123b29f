// The local service translates a document the way a segment-by-segment service would: the document
// layer reads its segments, the translator translates each (its pieces keep their formatting), and
// the document layer writes them back.
import { checkAborted, openDocument, type ReadLimits } from '../../documents/index.js';
import type { SegmentTranslator } from './translator.js';
import type { DocumentInput, DocumentOutput } from './types.js';

export async function translateDocumentFile(
  input: DocumentInput,
  output: DocumentOutput,
  translator: SegmentTranslator,
  opts: { limits: ReadLimits; signal?: AbortSignal | undefined },
): Promise<void> {
  const signal = opts.signal ? { signal: opts.signal } : {};
  const doc = await openDocument(input.path, { format: input.ext, limits: opts.limits, ...signal });
  const translations = new Map<number, string[]>();
  for await (const s of doc.segments()) {
    if (s.id % 1000 === 999) checkAborted(signal);
    const texts = s.pieces.map((p) => p.text);
    const code = s.pieces.some((p) => p.code) ? s.pieces.map((p) => p.code === true) : undefined;
    translations.set(s.id, translator.translate(texts, code));
  }
  await doc.write(
    (s) => translations.get(s.id),
    { path: output.path, format: output.ext.toLowerCase() },
    { targetLang: translator.targetLang, ...signal },
  );
}
