import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, STYLE_24H_CURLY, workdir, type Workdir } from './helpers.js';
import { makeZip, paragraphs, readZip } from './zip-helpers.js';
import { assertWellFormed } from '../../src/documents/formats/xml.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

/** A minimal docx whose body is `documentXml`, written into the work dir. */
async function docxWith(name: string, documentXml: string): Promise<string> {
  return w.file(
    name,
    await makeZip([
      [
        '[Content_Types].xml',
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
      ],
      ['word/document.xml', documentXml],
    ]),
  );
}

describe('docx, pptx, xlsx', () => {
  it('docx: headers, footers, footnotes and comments are translated; run formatting is kept', async () => {
    const { out } = await w.translate(join(SAMPLES, 'office', 'report.docx'), 'de');
    const b = await readZip(out);
    const text = (name: string): string[] => paragraphs(b.get(name)?.toString('utf8') ?? '', 'p', 't');
    const header = [...b.keys()].find((n) => /^word\/header\d*\.xml$/.test(n)) as string;
    const footer = [...b.keys()].find((n) => /^word\/footer\d*\.xml$/.test(n)) as string;
    expect(text(header)).toContain('Vertraulich');
    expect(text(footer)).toContain('Vielen Dank!');
    expect(text('word/comments.xml')).toContain('Bitte prüfen Sie diesen Absatz.');
    expect(text('word/footnotes.xml').some((t) => t.startsWith('[de] '))).toBe(true);
    const doc = b.get('word/document.xml')?.toString('utf8') ?? '';
    expect(doc).toMatch(/<w:b\/>[\s\S]*?<w:t[^>]*>Willkommen bei locsync\.<\/w:t>/);
  });

  it('pptx and docx say the target language: run properties, document defaults', async () => {
    const pptx = await readZip((await w.translate(join(SAMPLES, 'office', 'slides.pptx'), 'ja')).out);
    const langs = (xml: string | undefined): string[] =>
      [...(xml ?? '').matchAll(/\slang="([^"]*)"/g)].map((m) => m[1] as string);
    const slide = langs(pptx.get('ppt/slides/slide1.xml')?.toString('utf8'));
    expect(slide.length).toBeGreaterThan(0);
    expect(new Set(slide)).toEqual(new Set(['ja']));
    expect(langs(pptx.get('ppt/slideMasters/slideMaster1.xml')?.toString('utf8'))).toEqual(['ja']);

    const input = await w.file(
      'lang.docx',
      await makeZip([
        ['[Content_Types].xml', '<Types/>'],
        [
          'word/document.xml',
          '<w:document xmlns:w="w"><w:body><w:p><w:r><w:rPr><w:i/><w:lang w:val="en-US" w:eastAsia="en-US"/></w:rPr><w:t>Hello there</w:t></w:r></w:p></w:body></w:document>',
        ],
        [
          'word/styles.xml',
          '<w:styles xmlns:w="w"><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="en-US"/></w:rPr></w:rPrDefault></w:docDefaults></w:styles>',
        ],
      ]),
    );
    const docx = await readZip((await w.translate(input, 'pt-br')).out);
    const doc = docx.get('word/document.xml')?.toString('utf8') ?? '';
    expect(doc).toContain('<w:lang w:val="pt-BR" w:eastAsia="en-US"/>');
    expect(doc).toContain('<w:i/>');
    expect(docx.get('word/styles.xml')?.toString('utf8')).toContain('<w:lang w:val="pt-BR"/>');
  });

  it('xlsx: formulas, numbers and cached values are never translated', async () => {
    const src = join(SAMPLES, 'office', 'status.xlsx');
    const { out } = await w.translate(src, 'de', { style: STYLE_24H_CURLY });
    const a = (await readZip(src)).get('xl/worksheets/sheet1.xml')?.toString('utf8') ?? '';
    const b = (await readZip(out)).get('xl/worksheets/sheet1.xml')?.toString('utf8') ?? '';
    const cells = (x: string, tag: string): string[] =>
      [...x.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1] as string);
    expect(cells(b, 'f')).toEqual(cells(a, 'f'));
    expect(cells(b, 'v')).toEqual(cells(a, 'v'));
    const strings = paragraphs(
      (await readZip(out)).get('xl/sharedStrings.xml')?.toString('utf8') ?? '',
      'si',
      't',
    );
    expect(strings).toContain('Bereit');
    expect(strings.some((s) => s.includes('15:30'))).toBe(true);
  });

  it('docx: entities stay escaped, xml:space is added where new text needs it, runs keep their properties', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const doc = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:rPr><w:b/></w:rPr><w:t>Tom &amp; Jerry</w:t></w:r><w:r><w:t xml:space="preserve"> and </w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t> friends</w:t></w:r></w:p><w:p><w:r><w:t>Hello</w:t></w:r><w:r><w:t xml:space="preserve"> world</w:t></w:r></w:p></w:body></w:document>`;
    const src = await docxWith('runs.docx', doc);
    const { out } = await w.translate(src, 'de', { engine: { phrasebookPath: undefined } });
    const xml = (await readZip(out)).get('word/document.xml')?.toString('utf8') ?? '';
    assertWellFormed(xml, 'document.xml');
    expect(xml).toContain('&amp;');
    expect(xml).toMatch(/<w:rPr><w:b\/><\/w:rPr><w:t>\[de\] [^<]*&amp;[^<]*<\/w:t>/);
    // a run whose new text starts with a space gets xml:space="preserve" (Word would drop the space)
    expect(xml).toMatch(/<w:rPr><w:i\/><\/w:rPr><w:t xml:space="preserve"> [^<]* ~+<\/w:t>/);
    expect(paragraphs(xml, 'p', 't')).toHaveLength(2);
  });

  it('docx: a phrasebook translation or a glossary term spanning formatted runs keeps every run and its formatting', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const run = (props: string, text: string) =>
      `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${text}</w:t></w:r>`;
    const doc = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p>${run('', 'Press ')}${run('<w:b/>', 'Save')}${run('', ' to keep ')}${run('<w:i/>', 'your')}${run('', ' work.')}</w:p><w:p>${run('<w:b/>', 'Acme')}${run('', ' Cloud keeps copies.')}</w:p></w:body></w:document>`;
    const src = await docxWith('formatted.docx', doc);
    const book = await w.file(
      'formatted-phrasebook.yaml',
      '"Press Save to keep your work.":\n  de: Drücken Sie Speichern, um Ihre Arbeit zu behalten.\n',
    );
    const { out } = await w.translate(src, 'de', {
      engine: { phrasebookPath: book },
      glossary: [['Acme Cloud', 'Acme Wolke']],
    });
    const xml = (await readZip(out)).get('word/document.xml')?.toString('utf8') ?? '';
    assertWellFormed(xml, 'document.xml');
    const [first, second] = paragraphs(xml, 'p', 't');
    expect(first).toBe('Drücken Sie Speichern, um Ihre Arbeit zu behalten.');
    // The bold and the italic run keep some of the text (not emptied into the first run).
    const bold = /<w:rPr><w:b\/><\/w:rPr><w:t[^>]*>([^<]*)<\/w:t>/g;
    const italic = /<w:rPr><w:i\/><\/w:rPr><w:t[^>]*>([^<]*)<\/w:t>/.exec(xml)?.[1];
    const bolds = [...xml.matchAll(bold)].map((m) => m[1]);
    expect(bolds[0]?.trim()).not.toBe('');
    expect(italic?.trim()).not.toBe('');
    // The term across a bold and a plain run is replaced; the bold run still holds its word.
    expect(second).toMatch(/Acme Wolke/);
    expect(bolds[1]).toMatch(/Acme$/);
    expect(xml).not.toContain('Cloud');
  });
});
