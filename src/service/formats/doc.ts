// Legacy Word (.doc, Word 97-2003): the text is extracted (word-extractor) and the translation is
// written as a new .docx: body paragraphs, headers and footers; footnotes, endnotes and comments are
// appended at the end of the body. Formatting, tables and images of the .doc are not carried over.
import { open } from 'node:fs/promises';
import WordExtractor from 'word-extractor';
import type { FormatHandler } from './context.js';
import { checkAborted, withTimeout } from './context.js';
import { DocumentFormatError } from '../engine/types.js';
import { writeDocx, type DocxBlock } from './docx-writer.js';

/** Signature of an OLE2 compound file, the container of .doc files. */
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

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

export const translateDoc: FormatHandler = async (input, output, ctx) => {
  const head = Buffer.alloc(512);
  const fh = await open(input.path, 'r');
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
    doc = await withTimeout(
      new WordExtractor().extract(input.path),
      EXTRACT_TIMEOUT_MS,
      'took too long to read',
    );
  } catch (err) {
    throw new DocumentFormatError(
      `the Word 97-2003 document (.doc) could not be read: ${(err as Error).message}`,
    );
  }
  checkAborted(ctx);
  const t = (text: string): string => ctx.translator.translateText(text);
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
  const blocks: DocxBlock[] = get('getBody').map((p) => ({ text: t(p) }));
  const notes = [get('getTextboxes'), get('getFootnotes'), get('getEndnotes'), get('getAnnotations')].flat();
  blocks.push(...notes.map((p) => ({ text: t(p) })));
  await writeDocx(output.path, {
    blocks,
    header: get('getHeaders').map(t),
    footer: get('getFooters').map(t),
    lang: ctx.translator.targetLang,
  });
};
