import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, STYLE_24H_CURLY, workdir, type Workdir } from './helpers.js';
import { paragraphs, readZip } from './zip-helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

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
