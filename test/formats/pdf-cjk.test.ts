// Japanese (and Chinese) text in translated PDFs: written in Noto Sans JP beside DejaVu Sans, subset,
// readable back, wrapped between characters; characters no bundled font has become `?`.
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import fontkit from '@pdf-lib/fontkit';
import { extractPdf, writePdf } from '../../src/documents/formats/pdf.js';
import { evenGlyphs, PdfFonts, wrapText } from '../../src/documents/formats/pdf-fonts.js';
import { phrasebook, SAMPLES, workdir, type Workdir } from './helpers.js';
import { verifyPdf } from './verify.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

const REPORT = join(SAMPLES, 'office', 'report.pdf');
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** Base font names of the fonts embedded in a PDF. */
async function fontNames(path: string): Promise<string[]> {
  const pdf = await PDFDocument.load(await readFile(path));
  const names: string[] = [];
  for (const [, obj] of pdf.context.enumerateIndirectObjects()) {
    if (obj instanceof PDFDict && obj.get(PDFName.of('Type')) === PDFName.of('Font')) {
      const base = obj.get(PDFName.of('BaseFont'));
      if (base instanceof PDFName && obj.get(PDFName.of('Subtype')) === PDFName.of('Type0'))
        names.push(base.decodeText());
    }
  }
  return names.sort();
}

const texts = (pages: Awaited<ReturnType<typeof extractPdf>>): string[] =>
  pages.flatMap((p) => p.paragraphs.map((q) => q.text));

describe('PDF with Japanese text', () => {
  it('report.pdf -> ja: the phrasebook translations read back exactly, no `?`, small file', async () => {
    const { out } = await w.translate(REPORT, 'ja');
    await verifyPdf(REPORT, out, 'ja');
    const source = texts(await extractPdf(new Uint8Array(await readFile(REPORT))));
    const result = texts(await extractPdf(new Uint8Array(await readFile(out))));
    const hits = source
      .map((s) => phrasebook.lookup(s, 'ja'))
      .filter((t): t is string => t !== undefined && CJK.test(t));
    expect(hits.length).toBeGreaterThanOrEqual(3);
    for (const hit of hits) expect(result).toContain(hit);
    const cjkParagraphs = result.filter((t) => CJK.test(t));
    expect(cjkParagraphs).toHaveLength(hits.length);
    for (const t of cjkParagraphs) expect(t).not.toContain('?');
    expect(await fontNames(out)).toEqual([
      expect.stringMatching(/^DejaVuSans/),
      expect.stringMatching(/^NotoSansJP/),
    ]);
    // subset: the whole Noto Sans JP file is 5.5 MB
    expect((await stat(out)).size).toBeLessThan(60_000);
  });

  it('a Latin-only translation embeds DejaVu Sans alone', async () => {
    const { out } = await w.translate(REPORT, 'de');
    expect(await fontNames(out)).toEqual([expect.stringMatching(/^DejaVuSans/)]);
    expect((await stat(out)).size).toBeLessThan(30_000);
  });

  it('long Japanese paragraphs wrap between characters, never before closing punctuation', async () => {
    const text = 'このフォルダーは自動的に翻訳されます。'.repeat(12) + 'locsync へようこそ。';
    const pdf = await PDFDocument.create();
    pdf.registerFontkit(fontkit);
    const fonts = await PdfFonts.embed(pdf, [text]);
    const lines = wrapText(text, fonts, 12, 200);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      expect(fonts.widthOf(line, 12)).toBeLessThanOrEqual(200);
      expect(line).not.toMatch(/^[。、！？」ー]/u);
    }
    expect(lines.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
    // written and read back: the lines of one paragraph join without spaces
    const path = join(w.dir, 'wrapped.pdf');
    await writePdf(
      path,
      [{ width: 300, height: 400, paragraphs: [{ text, x: 40, y: 360, size: 12 }] }],
      'ja',
    );
    expect(texts(await extractPdf(new Uint8Array(await readFile(path))))).toEqual([text]);
  });

  it('mixed Latin and Japanese on a line, Chinese in JIS kanji; Hangul and other characters become ?', async () => {
    const path = join(w.dir, 'mixed.pdf');
    const paragraphs = ['Open 設定 (Settings) → 保存 at 3:30 PM.', '中文翻译', '한국어 text'].map(
      (text, i) => ({ text, x: 40, y: 700 - 40 * i, size: 12 }),
    );
    await writePdf(path, [{ width: 595, height: 842, paragraphs }], 'ja');
    expect(texts(await extractPdf(new Uint8Array(await readFile(path))))).toEqual([
      'Open 設定 (Settings) → 保存 at 3:30 PM.',
      '中文翻?', // 译 (simplified) is not in Noto Sans JP
      '??? text',
    ]);
  });

  it('font subsets keep every glyph intact (glyph records padded for the short loca format)', async () => {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf');
    const original = fontkit.create(new Uint8Array(await readFile(file)));
    const font = fontkit.create(evenGlyphs(new Uint8Array(await readFile(file))));
    const subset = font.createSubset();
    const chars = [...'locsyncへようこそ。このフォルダーは自動的に翻訳されます。ありがとうございます！'];
    const ids = chars.map((ch) => subset.includeGlyph(font.glyphForCodePoint(ch.codePointAt(0) as number)));
    const chunks: Uint8Array[] = [];
    await new Promise<void>((resolve) => {
      const stream = subset.encodeStream();
      stream.on('data', (c: Uint8Array) => chunks.push(c));
      stream.on('end', () => resolve());
    });
    const encoded = fontkit.create(Buffer.concat(chunks));
    chars.forEach((ch, i) => {
      const want = original.glyphForCodePoint(ch.codePointAt(0) as number);
      const got = encoded.getGlyph(ids[i] as number);
      expect(got.path.toSVG(), ch).toBe(want.path.toSVG());
      expect(got.path.toSVG().length, ch).toBeGreaterThan(20);
    });
  });
});
