import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partRules } from '../../src/service/formats/ooxml.js';
import { SAMPLES, STYLE_24H_CURLY, checkSegment, workdir, type Workdir } from './helpers.js';
import { countTags, paragraphs, readZip } from './zip-helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

interface Case {
  file: string;
  kind: 'docx' | 'pptx' | 'xlsx';
  /** Parts that must have translated text, with their paragraph and text element names. */
  parts: Array<{ name: RegExp; paragraph: string; text: string; tags: string[] }>;
}

const CASES: Case[] = [
  {
    file: 'report.docx',
    kind: 'docx',
    parts: [
      {
        name: /^word\/(document|header\d*|footer\d*|footnotes|comments)\.xml$/,
        paragraph: 'p',
        text: 't',
        tags: ['p', 'r', 'rPr', 'tbl', 'tc', 'b', 'i'],
      },
    ],
  },
  {
    file: 'slides.pptx',
    kind: 'pptx',
    parts: [
      {
        name: /^ppt\/(slides|notesSlides)\/\w+\.xml$/,
        paragraph: 'p',
        text: 't',
        tags: ['p', 'r', 'rPr', 'sp'],
      },
    ],
  },
  {
    file: 'status.xlsx',
    kind: 'xlsx',
    parts: [
      { name: /^xl\/sharedStrings\.xml$/, paragraph: 'si', text: 't', tags: ['si'] },
      { name: /^xl\/worksheets\/sheet\d+\.xml$/, paragraph: 'is', text: 't', tags: ['c', 'row', 'f', 'v'] },
    ],
  },
];

describe('docx, pptx, xlsx', () => {
  for (const c of CASES) {
    it(`${c.file}: same package, same structure, text translated, other parts byte-identical`, async () => {
      const src = join(SAMPLES, 'office', c.file);
      const { out, characters } = await w.translate(src, 'fr');
      const a = await readZip(src);
      const b = await readZip(out);
      expect([...b.keys()]).toEqual([...a.keys()]);
      let translatedParts = 0;
      let segments = 0;
      for (const [name, content] of a) {
        const result = b.get(name) as Buffer;
        if (!partRules(c.kind, name)) {
          expect(result.equals(content), `${name} is byte-identical`).toBe(true);
          continue;
        }
        const part = c.parts.find((p) => p.name.test(name));
        if (!part) continue;
        const xa = content.toString('utf8');
        const xb = result.toString('utf8');
        for (const tag of part.tags)
          expect(countTags(xb, tag), `<${tag}> in ${name}`).toBe(countTags(xa, tag));
        const pa = paragraphs(xa, part.paragraph, part.text);
        const pb = paragraphs(xb, part.paragraph, part.text);
        expect(pb).toHaveLength(pa.length);
        pa.forEach((text, i) =>
          expect(checkSegment(text, pb[i] as string, 'fr'), `${name} #${i}`).toBeUndefined(),
        );
        segments += pa.filter((t) => t.trim()).length;
        if (xa !== xb) translatedParts++;
      }
      expect(translatedParts).toBeGreaterThanOrEqual(c.parts.length);
      expect(segments).toBeGreaterThan(2);
      expect(characters).toBeGreaterThan(50);
    });
  }

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
});
