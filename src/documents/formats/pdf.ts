// PDF: read only. The text is extracted with pdf.js and grouped into paragraphs (lines that follow
// each other with the same font size): each is a segment (a heading when set at least 1.4 times the
// median size). The writer makes a new PDF of the translation with pdf-lib: same number and
// size of pages, each paragraph at its original position and size, wrapped to the page width, in
// DejaVu Sans, with Noto Sans JP for the characters DejaVu lacks (Chinese and Japanese; see
// pdf-fonts.ts). Layout is simplified: images, vector graphics, colours, fonts and columns are not
// kept, and text that no longer fits continues on an extra page. With output ext docx the
// paragraphs become a Word document (one page break per PDF page). A PDF without text (a scan) comes
// back unchanged with 0 characters.
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { PDFDocument, rgb } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import { checkAborted, withTimeout } from '../limits.js';
import { DocumentFormatError } from '../errors.js';
import { writeDocx, type DocxBlock } from './docx-writer.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';
import type { Segment } from '../segment.js';
import { isWide, PdfFonts, wrapText } from './pdf-fonts.js';

export interface PdfParagraph {
  text: string;
  /** Left edge and baseline of the first line, PDF units from the bottom-left corner. */
  x: number;
  y: number;
  size: number;
}

export interface PdfPage {
  width: number;
  height: number;
  paragraphs: PdfParagraph[];
}

/** Seconds a PDF may take to parse before it counts as hostile. */
const PARSE_TIMEOUT_MS = 60_000;
const MARGIN = 36;

interface Line {
  text: string;
  x: number;
  y: number;
  size: number;
  end: number;
}

function groupLines(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let line: Line | undefined;
  for (const item of items) {
    const [a = 0, b = 0, , , e = 0, f = 0] = item.transform as number[];
    const size = Math.hypot(a, b) || item.height || 10;
    if (item.str === '' && !item.hasEOL) continue;
    if (!line || Math.abs(f - line.y) > size * 0.5) {
      if (line && line.text.trim()) lines.push(line);
      line = { text: '', x: e, y: f, size, end: e };
    }
    if (line.text && e - line.end > size * 0.2 && !/\s$/.test(line.text) && !/^\s/.test(item.str))
      line.text += ' ';
    line.text += item.str;
    line.size = Math.max(line.size, size);
    line.end = e + item.width;
    if (item.hasEOL) {
      if (line.text.trim()) lines.push(line);
      line = undefined;
    }
  }
  if (line && line.text.trim()) lines.push(line);
  return lines;
}

function groupParagraphs(lines: Line[]): PdfParagraph[] {
  const paragraphs: PdfParagraph[] = [];
  let prev: Line | undefined;
  for (const line of lines) {
    const last = paragraphs[paragraphs.length - 1];
    const follows =
      prev &&
      last &&
      Math.abs(line.size - prev.size) <= prev.size * 0.15 &&
      prev.y - line.y > 0 &&
      prev.y - line.y <= prev.size * 1.6 &&
      Math.abs(line.x - last.x) <= prev.size * 3;
    if (follows && last) {
      const head = last.text.replace(/\s+$/, '');
      const tail = line.text.trim();
      // Chinese and Japanese lines continue without a space
      const sep = isWide(head.slice(-1)) && isWide(tail.charAt(0)) ? '' : ' ';
      last.text = `${head}${sep}${tail}`;
    } else paragraphs.push({ text: line.text.trim(), x: line.x, y: line.y, size: line.size });
    prev = line;
  }
  return paragraphs;
}

/** Pages of a PDF with their paragraphs. DocumentFormatError when it is not a readable PDF. */
export async function extractPdf(data: Uint8Array, ctx?: { signal?: AbortSignal }): Promise<PdfPage[]> {
  const task = getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const onAbort = (): void => void task.destroy();
  ctx?.signal?.addEventListener('abort', onAbort);
  try {
    const read = async (): Promise<PdfPage[]> => {
      const doc = await task.promise;
      const pages: PdfPage[] = [];
      for (let i = 1; i <= doc.numPages; i++) {
        if (ctx) checkAborted(ctx);
        const page = await doc.getPage(i);
        const { width, height } = page.getViewport({ scale: 1 });
        const content = await page.getTextContent();
        const items = content.items.filter((it): it is TextItem => 'str' in it);
        pages.push({ width, height, paragraphs: groupParagraphs(groupLines(items)) });
        page.cleanup();
      }
      return pages;
    };
    return await withTimeout(read(), PARSE_TIMEOUT_MS, 'the PDF took too long to read');
  } catch (err) {
    if (err instanceof DocumentFormatError || ctx?.signal?.aborted) throw err;
    throw new DocumentFormatError(`not a valid PDF: ${(err as Error).message}`);
  } finally {
    ctx?.signal?.removeEventListener('abort', onAbort);
    await task.destroy();
  }
}

/** Writes translated pages as a PDF. */
export async function writePdf(path: string, pages: PdfPage[], lang: string): Promise<void> {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const fonts = await PdfFonts.embed(
    pdf,
    pages.flatMap((p) => p.paragraphs.map((q) => q.text)),
  );
  pdf.setLanguage(lang);
  pdf.setProducer('locsync local service');
  for (const p of pages) {
    let page = pdf.addPage([p.width, p.height]);
    let cursor = p.height - MARGIN;
    for (const para of p.paragraphs) {
      const size = Math.min(36, Math.max(6, para.size));
      const lineHeight = size * 1.25;
      const x = Math.min(Math.max(MARGIN / 2, para.x), p.width - 100);
      let y = Math.min(para.y, cursor);
      for (const line of wrapText(para.text, fonts, size, p.width - x - MARGIN / 2)) {
        if (y < MARGIN / 2) {
          page = pdf.addPage([p.width, p.height]);
          y = p.height - MARGIN - size;
        }
        let runX = x;
        for (const run of fonts.runs(line)) {
          page.drawText(run.text, { x: runX, y, size, font: run.font, color: rgb(0, 0, 0) });
          runX += run.font.widthOfTextAtSize(run.text, size);
        }
        y -= lineHeight;
      }
      cursor = y - lineHeight * 0.6; // a paragraph gap, so that reading the PDF finds the same paragraphs
    }
  }
  await writeFile(path, await pdf.save());
}

export const readPdf: FormatReader = async (path, ctx) => {
  const data = new Uint8Array(await readFile(path));
  if (!Buffer.from(data.subarray(0, 1024)).includes('%PDF-')) {
    throw new DocumentFormatError('not a valid PDF: the file has no %PDF header');
  }
  const pages = await extractPdf(data, ctx);
  const sizes = pages.flatMap((p) => p.paragraphs.map((q) => q.size)).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 12;
  const heading = (q: PdfParagraph): boolean => q.size >= median * 1.4;
  const found = new SegmentList();
  const segmentOf = new Map<PdfParagraph, Segment>();
  pages.forEach((page, i) => {
    for (const q of page.paragraphs) {
      const s = found.add(heading(q) ? 'heading' : 'text', `page ${i + 1}`, [{ text: q.text }]);
      if (s) segmentOf.set(q, s);
    }
  });
  return openedDocument({
    format: 'pdf',
    keepsLayout: false,
    outputFormats: ['pdf', 'docx'],
    segments: found.segments,
    async write(translationOf, out, opts) {
      if (out.format === 'pdf' && segmentOf.size === 0) {
        await copyFile(path, out.path); // no text layer (a scan): nothing to translate
        return;
      }
      const text = (q: PdfParagraph): string =>
        textsOut(segmentOf.get(q), [{ text: q.text }], translationOf).join('');
      const translated: PdfPage[] = pages.map((p) => ({
        ...p,
        paragraphs: p.paragraphs.map((q) => ({ ...q, text: text(q) })),
      }));
      if (out.format === 'docx') {
        const blocks: DocxBlock[] = translated.flatMap((p, i) => [
          ...(i > 0 ? [{ pageBreak: true as const }] : []),
          ...p.paragraphs.map((q) => ({ text: q.text, heading: heading(q) })),
        ]);
        await writeDocx(out.path, { blocks, lang: opts.targetLang });
        return;
      }
      if (out.format !== 'pdf')
        throw new DocumentFormatError(`a PDF cannot be translated into .${out.format}`);
      checkAborted(opts);
      await writePdf(out.path, translated, opts.targetLang);
    },
  });
};
