import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  fromTaggedText,
  openDocument,
  segmentText,
  taggedText,
  type Segment,
} from '../../src/documents/index.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');

async function segmentsOf(file: string): Promise<Segment[]> {
  const doc = await openDocument(file, { format: path.extname(file).slice(1) });
  const out: Segment[] = [];
  for await (const s of doc.segments()) out.push(s);
  return out;
}

describe('the document layer', () => {
  const dir = fs.mkdtemp(path.join(os.tmpdir(), 'locsync-documents-'));
  afterAll(async () => fs.rm(await dir, { recursive: true, force: true }));

  it('reads each format’s segments in document order with their role and place', async () => {
    const docx = await segmentsOf(path.join(SAMPLES, 'office/report.docx'));
    expect(docx.map((s) => s.id)).toEqual(docx.map((_, i) => i));
    expect(docx[0]?.where).toMatch(/^word\/document\.xml paragraph \d+$/);
    expect(new Set(docx.map((s) => s.role))).toContain('text');

    const xlsx = await segmentsOf(path.join(SAMPLES, 'office/status.xlsx'));
    expect(new Set(xlsx.map((s) => s.role))).toEqual(new Set(['cell']));

    const html = await segmentsOf(path.join(SAMPLES, 'web/index.html'));
    expect(html.some((s) => s.role === 'heading')).toBe(true);
    expect(html.some((s) => s.role === 'attribute' && /^<img alt>/.test(s.where))).toBe(true);

    const srt = await segmentsOf(path.join(SAMPLES, 'video/welcome.srt'));
    expect(srt[0]).toMatchObject({ role: 'subtitle', where: 'cue 1' });

    const xliff = await segmentsOf(path.join(SAMPLES, 'localization/strings.xlf'));
    expect(xliff.every((s) => s.role === 'unit')).toBe(true);

    const pdf = await segmentsOf(path.join(SAMPLES, 'office/report.pdf'));
    expect(pdf[0]?.where).toBe('page 1');

    expect(await segmentsOf(path.join(SAMPLES, 'images/logo.png'))).toEqual([]);
  });

  it('writes translated segments back so that reading the output gives them, for every writable format', async () => {
    const names = [
      'readme.txt',
      'video/welcome.srt',
      'web/index.html',
      'web/cafe.htm',
      'localization/app.xliff',
      'localization/strings.xlf',
      'office/report.docx',
      'office/slides.pptx',
      'office/status.xlsx',
    ];
    for (const name of names) {
      const ext = path.extname(name).slice(1);
      const doc = await openDocument(path.join(SAMPLES, name), { format: ext });
      expect(doc.keepsLayout, name).toBe(true);
      const source: Segment[] = [];
      for await (const s of doc.segments()) source.push(s);
      const out = path.join(await dir, `upper.${ext}`);
      await doc.write(
        (s) => s.pieces.map((p) => `${p.text.toUpperCase()}`),
        { path: out, format: ext },
        { targetLang: 'de' },
      );
      if (ext === 'xliff' || ext === 'xlf') {
        // an XLIFF's segments are its sources: the translations are its targets
        const xml = await fs.readFile(out, 'utf8');
        for (const p of source.flatMap((s) => s.pieces).filter((p) => !p.code))
          expect(xml, name).toContain(p.text.toUpperCase().replace(/&/g, '&amp;').replace(/</g, '&lt;'));
        continue;
      }
      const written = await segmentsOf(out);
      expect(written.map(segmentText), name).toEqual(source.map((s) => segmentText(s).toUpperCase()));
      expect(
        written.map((s) => s.role),
        name,
      ).toEqual(source.map((s) => s.role));
    }
  });

  it('keeps every byte but the text: a text file written untranslated is the source', async () => {
    for (const name of ['readme.txt', 'windows-notes.txt', 'video/welcome.srt']) {
      const ext = path.extname(name).slice(1);
      const doc = await openDocument(path.join(SAMPLES, name), { format: ext });
      const out = path.join(await dir, `same.${ext}`);
      await doc.write(() => undefined, { path: out, format: ext }, { targetLang: 'de' });
      expect((await fs.readFile(out)).equals(await fs.readFile(path.join(SAMPLES, name))), name).toBe(true);
    }
  });

  it('refuses a translation with the wrong number of pieces rather than writing half of it', async () => {
    const doc = await openDocument(path.join(SAMPLES, 'readme.txt'), { format: 'txt' });
    await expect(
      doc.write(
        () => ['a', 'b'],
        { path: path.join(await dir, 'x.txt'), format: 'txt' },
        { targetLang: 'de' },
      ),
    ).rejects.toThrow(/has 2 pieces, not 1/);
  });

  it('gives a segment as tagged text and a tagged translation back as pieces', () => {
    const segment = {
      pieces: [{ text: 'Press ' }, { text: '<br/>', code: true as const }, { text: 'Save & go' }],
    };
    const tagged = taggedText(segment);
    expect(tagged).toBe('<g id="0">Press </g><x id="1"/><g id="2">Save &amp; go</g>');
    expect(
      fromTaggedText('<g id="2">Speichern &amp; los</g> <x id="1"/><g id="0">Drücken</g>', segment),
    ).toEqual(['Drücken', '<br/>', 'Speichern & los ']);
    expect(taggedText({ pieces: [{ text: 'a < b' }] })).toBe('a &lt; b');
    expect(fromTaggedText('a &lt; c', { pieces: [{ text: 'a < b' }] })).toEqual(['a < c']);
  });
});
