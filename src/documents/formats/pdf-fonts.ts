// Fonts of the translated PDFs: DejaVu Sans for Latin, Greek, Cyrillic and most symbols; Noto Sans
// JP for the characters DejaVu lacks (kana, kanji, CJK punctuation, full-width forms). The font is
// chosen per character, so a line is drawn as runs of one font each. Font files are read only when
// a PDF is written (Noto Sans JP only when a document has a character DejaVu lacks) and kept for
// the next document; both are embedded as subsets. A character neither font has is written as `?`.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

const require = createRequire(import.meta.url);

const LATIN = 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
const CJK = '@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf';

interface FontFile {
  bytes: Uint8Array;
  /** The code points the font has (the parsed font is not kept: it holds a copy of the file). */
  chars: Set<number>;
}

const files = new Map<string, Promise<FontFile>>();

/**
 * The TrueType font `bytes` with every glyph record padded to a multiple of 4 bytes (a new file of
 * about the same size, or `bytes` when they all are of even length). @pdf-lib/fontkit writes a
 * subset's `loca` table in the short format, which stores offsets divided by 2, without padding the
 * glyph records it copies: after a record of odd length every later glyph of the subset is garbage
 * (blank in most viewers). Noto Sans JP has thousands of such records; DejaVu Sans has none.
 */
export function evenGlyphs(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = new Map<string, { record: number; offset: number; length: number }>();
  const numTables = view.getUint16(4);
  for (let i = 0; i < numTables; i++) {
    const record = 12 + 16 * i;
    const tag = String.fromCharCode(...bytes.subarray(record, record + 4));
    tables.set(tag, { record, offset: view.getUint32(record + 8), length: view.getUint32(record + 12) });
  }
  const head = tables.get('head');
  const maxp = tables.get('maxp');
  const loca = tables.get('loca');
  const glyf = tables.get('glyf');
  if (!head || !maxp || !loca || !glyf) return bytes; // not TrueType outlines (CFF): nothing to do
  const longLoca = view.getInt16(head.offset + 50) === 1;
  const numGlyphs = view.getUint16(maxp.offset + 4);
  const offsets: number[] = [];
  for (let i = 0; i <= numGlyphs; i++) {
    offsets.push(longLoca ? view.getUint32(loca.offset + 4 * i) : view.getUint16(loca.offset + 2 * i) * 2);
  }
  const pad = (n: number): number => (n + 3) & ~3;
  if (offsets.every((o, i) => i === 0 || (o - (offsets[i - 1] as number)) % 2 === 0)) return bytes;
  // The font is laid out anew: the same tables in the same order, glyf padded, loca long.
  let glyfLength = 0;
  for (let i = 0; i < numGlyphs; i++) glyfLength += pad((offsets[i + 1] as number) - (offsets[i] as number));
  const layout = [...tables.values()].sort((x, y) => x.offset - y.offset);
  let end = 12 + 16 * numTables;
  const at = new Map<number, number>(); // table record -> new offset
  for (const t of layout) {
    at.set(t.record, pad(end));
    const length = t === glyf ? glyfLength : t === loca ? 4 * (numGlyphs + 1) : t.length;
    end = pad(end) + length;
  }
  const out = new Uint8Array(pad(end));
  const outView = new DataView(out.buffer);
  out.set(bytes.subarray(0, 12 + 16 * numTables));
  for (const t of layout) {
    const offset = at.get(t.record) as number;
    outView.setUint32(t.record + 8, offset);
    if (t === glyf || t === loca) continue;
    out.set(bytes.subarray(t.offset, t.offset + t.length), offset);
  }
  const glyfAt = at.get(glyf.record) as number;
  const locaAt = at.get(loca.record) as number;
  let pos = 0;
  for (let i = 0; i < numGlyphs; i++) {
    const start = offsets[i] as number;
    const stop = offsets[i + 1] as number;
    outView.setUint32(locaAt + 4 * i, pos);
    out.set(bytes.subarray(glyf.offset + start, glyf.offset + stop), glyfAt + pos);
    pos += pad(stop - start);
  }
  outView.setUint32(locaAt + 4 * numGlyphs, pos);
  outView.setUint32(glyf.record + 12, glyfLength);
  outView.setUint32(loca.record + 12, 4 * (numGlyphs + 1));
  outView.setInt16((at.get(head.record) as number) + 50, 1);
  return out;
}

function load(spec: string): Promise<FontFile> {
  let file = files.get(spec);
  if (!file) {
    file = readFile(require.resolve(spec)).then((buf) => {
      const bytes = evenGlyphs(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
      return { bytes, chars: new Set(fontkit.create(bytes).characterSet) };
    });
    file.catch(() => files.delete(spec)); // a failed read is retried by the next document
    files.set(spec, file);
  }
  return file;
}

export interface TextRun {
  text: string;
  font: PDFFont;
}

/** The fonts of one PDF being written. */
export class PdfFonts {
  private constructor(
    private readonly latin: { file: FontFile; pdf: PDFFont },
    private readonly cjk: { file: FontFile; pdf: PDFFont } | undefined,
  ) {}

  /** Embeds the fonts that `texts` need into `pdf` (which must have fontkit registered). */
  static async embed(pdf: PDFDocument, texts: Iterable<string>): Promise<PdfFonts> {
    const latinFile = await load(LATIN);
    const missing = new Set<number>();
    for (const text of texts) {
      for (const ch of text) {
        const cp = ch.codePointAt(0) as number;
        if (!latinFile.chars.has(cp) && !/\s/u.test(ch)) missing.add(cp);
      }
    }
    const latin = { file: latinFile, pdf: await pdf.embedFont(latinFile.bytes, { subset: true }) };
    if (missing.size === 0) return new PdfFonts(latin, undefined);
    const cjkFile = await load(CJK);
    if (![...missing].some((cp) => cjkFile.chars.has(cp))) return new PdfFonts(latin, undefined);
    const cjk = { file: cjkFile, pdf: await pdf.embedFont(cjkFile.bytes, { subset: true }) };
    return new PdfFonts(latin, cjk);
  }

  /** `text` split into runs of one font each; characters no font has become `?`. */
  runs(text: string): TextRun[] {
    const runs: TextRun[] = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0) as number;
      let font = this.latin.pdf;
      let out = ch;
      if (!this.latin.file.chars.has(cp)) {
        if (this.cjk?.file.chars.has(cp)) font = this.cjk.pdf;
        else out = /\s/u.test(ch) ? ' ' : '?';
      }
      const last = runs[runs.length - 1];
      if (last && last.font === font) last.text += out;
      else runs.push({ text: out, font });
    }
    return runs;
  }

  widthOf(text: string, size: number): number {
    return this.runs(text).reduce((w, r) => w + r.font.widthOfTextAtSize(r.text, size), 0);
  }
}

/** Characters that are written without spaces between words (a line may break between any two). */
const WIDE = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u3000-\u303f\uff01-\uff60\uffe0-\uffe6]/u;
/** Characters a line must not start with (closing punctuation, small kana, the long vowel mark). */
const NO_BREAK_BEFORE =
  /[\p{Pe}\p{Pf},.;:!?%、。，．・：；！？ー々ゝゞぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ…‥]/u;
/** Characters a line must not end with (opening punctuation). */
const NO_BREAK_AFTER = /[\p{Ps}\p{Pi}]/u;

export const isWide = (ch: string): boolean => WIDE.test(ch);

/**
 * `text` wrapped to `width` at `size`: lines break at whitespace, and between two characters of
 * Chinese or Japanese text (not before closing punctuation nor after opening punctuation). Never
 * elsewhere, so that reading the PDF back (lines joined with a space, or with none between two such
 * characters) gives the text again.
 */
export function wrapText(text: string, fonts: PdfFonts, size: number, width: number): string[] {
  // Pieces that cannot be broken, each with whether a space precedes it.
  const atoms: Array<{ text: string; space: boolean }> = [];
  let space = false;
  let prev = '';
  for (const ch of text) {
    if (/\s/u.test(ch)) {
      space = true;
      continue;
    }
    const last = atoms[atoms.length - 1];
    const joins =
      last &&
      !space &&
      (!isWide(ch) || !isWide(prev) || NO_BREAK_BEFORE.test(ch) || NO_BREAK_AFTER.test(prev));
    if (joins) last.text += ch;
    else atoms.push({ text: ch, space: space && atoms.length > 0 });
    space = false;
    prev = ch;
  }
  const lines: string[] = [];
  let line = '';
  for (const atom of atoms) {
    const candidate = line ? `${line}${atom.space ? ' ' : ''}${atom.text}` : atom.text;
    if (line && fonts.widthOf(candidate, size) > width) {
      lines.push(line);
      line = atom.text;
    } else line = candidate;
  }
  if (line) lines.push(line);
  return lines;
}
