// Legacy Word (.doc, Word 97-2003): read only. The text is extracted (word-extractor): body
// paragraphs, then text boxes, footnotes, endnotes and comments (role note), headers, footers. The
// writer makes a new .docx of the translation, notes appended at the end of the body; formatting,
// tables and images of the .doc are not carried over.
import { open } from 'node:fs/promises';
import WordExtractor from 'word-extractor';
import { checkAborted, withTimeout } from '../limits.js';
import { CONTENT_KINDS } from '../content-kinds.js';
import { DocumentFormatError } from '../errors.js';
import type { SegmentRole } from '../segment.js';
import { writeDocx } from './docx-writer.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';

/** Signature of an OLE2 compound file, the container of .doc files. */
const OLE_SIGNATURE = CONTENT_KINDS.ole.bytes;

/** Options of word-extractor's getters (typed only in part by @types/word-extractor). */
interface ExtractOptions {
  filterUnicode?: boolean;
  includeFooters?: boolean;
  includeHeadersAndFooters?: boolean;
}

/** Paragraphs of extracted text (Word separates them with line breaks). */
function paragraphsOf(text: string): string[] {
  return (
    text
      .split(/\r\n|\n|\r/)
      // eslint-disable-next-line no-control-regex
      .map((p) => p.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ''))
      .filter((p) => p.trim() !== '')
  );
}

/** Reasons the header is not that of a plausible OLE2 compound file, or undefined. */
function oleHeaderProblem(head: Buffer, size: number): string | undefined {
  if (!OLE_SIGNATURE.every((b, i) => head[i] === b)) return 'the file is not an OLE2 compound document';
  const major = head.readUInt16LE(26);
  const byteOrder = head.readUInt16LE(28);
  const sectorShift = head.readUInt16LE(30);
  if (byteOrder !== 0xfffe || !((major === 3 && sectorShift === 9) || (major === 4 && sectorShift === 12))) {
    return 'its OLE2 header is corrupt';
  }
  if (size < 512 + 2 ** sectorShift) return 'the file is truncated';
  return undefined;
}

/** Seconds word-extractor may take before the file counts as hostile. */
const EXTRACT_TIMEOUT_MS = 60_000;

export const readDoc: FormatReader = async (path, ctx) => {
  const head = Buffer.alloc(512);
  const fh = await open(path, 'r');
  let size: number;
  try {
    await fh.read(head, 0, head.length, 0);
    size = (await fh.stat()).size;
  } finally {
    await fh.close();
  }
  const problem = oleHeaderProblem(head, size);
  if (problem) throw new DocumentFormatError(`not a valid Word 97-2003 document (.doc): ${problem}`);
  let doc: Awaited<ReturnType<WordExtractor['extract']>>;
  try {
    doc = await withTimeout(new WordExtractor().extract(path), EXTRACT_TIMEOUT_MS, 'took too long to read');
  } catch (err) {
    throw new DocumentFormatError(
      `the Word 97-2003 document (.doc) could not be read: ${(err as Error).message}`,
    );
  }
  checkAborted(ctx);
  // filterUnicode: false keeps typographic quotes and dashes as they are (the default makes them ASCII)
  const get = (
    part:
      | 'getBody'
      | 'getTextboxes'
      | 'getFootnotes'
      | 'getEndnotes'
      | 'getAnnotations'
      | 'getHeaders'
      | 'getFooters',
  ) =>
    paragraphsOf(
      (doc[part] as (o: ExtractOptions) => string).call(doc, {
        filterUnicode: false,
        includeFooters: false,
        includeHeadersAndFooters: false,
      }),
    );
  const found = new SegmentList();
  const add = (role: SegmentRole, what: string, paragraphs: string[]) =>
    paragraphs.flatMap((text, i) => found.add(role, `${what} paragraph ${i + 1}`, [{ text }]) ?? []);
  const body = add('text', 'body', get('getBody'));
  const notes = add(
    'note',
    'note',
    [get('getTextboxes'), get('getFootnotes'), get('getEndnotes'), get('getAnnotations')].flat(),
  );
  const headers = add('header', 'header', get('getHeaders'));
  const footers = add('footer', 'footer', get('getFooters'));
  return openedDocument({
    format: 'doc',
    keepsLayout: false,
    outputFormats: ['docx'],
    segments: found.segments,
    // Always a .docx (the service's output format for .doc), whatever the target's name says.
    async write(translationOf, out, opts) {
      const text = (s: (typeof body)[number]): string => textsOut(s, s.pieces, translationOf).join('');
      await writeDocx(out.path, {
        blocks: [...body, ...notes].map((s) => ({ text: text(s) })),
        header: headers.map(text),
        footer: footers.map(text),
        lang: opts.targetLang,
      });
    },
  });
};
