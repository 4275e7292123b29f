// What the string-format tests share: a file's segments, a visible "translation", a write to a
// fresh file that returns what was written.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Segment, TranslationOf } from '../../src/documents/index.js';
import type { StringDocument } from '../../src/documents/formats/strings/keyed.js';

export async function segmentsOf(doc: StringDocument): Promise<Segment[]> {
  const out: Segment[] = [];
  for await (const s of doc.segments()) out.push(s);
  return out;
}

/** A visible "translation": each text piece upper-cased and bracketed; code pieces as they are. */
export const shout: TranslationOf = (s) =>
  s.pieces.map((p) => (p.code ? p.text : `«${p.text.toUpperCase()}»`));

/** Writes a document into a new file of `dir` (default translation: shout) and returns its text. */
export function writerIn(dir: string) {
  let n = 0;
  return async (doc: StringDocument, lang: string, translationOf: TranslationOf = shout): Promise<string> => {
    const out = path.join(dir, `out-${n++}.${doc.format}`);
    await doc.write(translationOf, { path: out, format: doc.format }, { targetLang: lang });
    return fs.readFile(out, 'utf8');
  };
}
