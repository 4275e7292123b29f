import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStringDocument, openDocument, type FormatOptions, type Segment } from '../documents/index.js';

// The segments of one document as the review page compares them: their pieces (the text, and the
// placeholders and inline code a reader must see in place), and where each is. A translated XLIFF is
// read by its targets (the translation it carries), its source by its sources. A string file's
// segments are its keyed values: they carry their key, by which its versions are aligned. A file
// that holds several languages (a CSV file's columns, a String Catalog) is read as its mapping
// says, an output in its target language.

export interface SegmentLine {
  /** Every piece's text joined, code included (what "the same segment" compares). */
  text: string;
  /** Its pieces: code pieces are placeholders and inline markup, kept as they are. */
  pieces: Array<{ text: string; code?: true }>;
  where: string;
  /** A string file's key of the value ("app.title", "photos (few)"). */
  key?: string;
}

/** How a version is read: an output in its target language; the mapping's settings of its format. */
export interface ReadAs {
  /** It is an output in this language (an XLIFF read by its targets, a CSV file by its column). */
  lang?: string;
  formatOptions?: FormatOptions;
}

/** The segment lines of a file, read `as` a source or an output. */
export async function segmentLinesOfFile(file: string, format: string, as: ReadAs): Promise<SegmentLine[]> {
  const doc = await openDocument(file, {
    format,
    ...(as.lang ? { side: 'target' as const, lang: as.lang } : {}),
    ...(as.formatOptions ? { formatOptions: as.formatOptions } : {}),
  });
  const keyOf = isStringDocument(doc) ? (s: Segment) => doc.keyOf(s) : undefined;
  const lines: SegmentLine[] = [];
  for await (const s of doc.segments())
    lines.push({
      text: s.pieces.map((p) => p.text).join(''),
      pieces: s.pieces.map((p) => (p.code ? { text: p.text, code: true } : { text: p.text })),
      where: s.where,
      ...(keyOf ? { key: keyOf(s) } : {}),
    });
  return lines;
}

/** The segment lines of bytes that are not a file here (a version read from git), through a temporary file. */
export async function segmentLinesOfBytes(bytes: Buffer, format: string, as: ReadAs): Promise<SegmentLine[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-review-'));
  try {
    const file = path.join(dir, `document.${format || 'txt'}`);
    fs.writeFileSync(file, bytes);
    return await segmentLinesOfFile(file, format, as);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
