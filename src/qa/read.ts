import { openDocument, type FormatOptions, type OpenedDocument, type Segment } from '../documents/index.js';

// A document as the checks see it: each segment's translatable text, its code pieces and its place.

export interface ReadSegment {
  /** The translatable text (text pieces joined). */
  text: string;
  /** The code pieces' text (inline markup kept as it is). */
  code: string[];
  /** Where it is, for a person ("line 3", "page 2"). */
  where: string;
}

export interface ReadDocument {
  /** Lower-case format it was read as. */
  format: string;
  /** Its writer keeps every byte but the text (one translated segment per source segment). */
  keepsLayout: boolean;
  segments: ReadSegment[];
}

/**
 * Reads the segments of the document at `path` as `format`; `side: 'target'` reads a bilingual
 * document's translation (XLIFF targets), in `lang` where a file holds several languages (an Apple
 * String Catalog, a CSV file), read as its mapping says (`read`: a CSV file's columns). Throws what
 * the document layer throws.
 */
export async function readForChecks(
  path: string,
  format: string,
  side: 'source' | 'target' = 'source',
  lang?: string,
  read?: FormatOptions,
): Promise<ReadDocument> {
  return segmentsForChecks(
    await openDocument(path, {
      format,
      side,
      ...(lang ? { lang } : {}),
      ...(read ? { formatOptions: read } : {}),
    }),
  );
}

/** The segments of an opened document as the checks see them. */
export async function segmentsForChecks(doc: OpenedDocument): Promise<ReadDocument> {
  const out: ReadSegment[] = [];
  for await (const s of doc.segments() as AsyncIterable<Segment>) {
    let text = '';
    const code: string[] = [];
    for (const p of s.pieces) {
      if (p.code) code.push(p.text);
      else text += p.text;
    }
    out.push({ text, code, where: s.where });
  }
  return { format: doc.format, keepsLayout: doc.keepsLayout, segments: out };
}
