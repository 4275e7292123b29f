import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { bothMethods, segmentTexts, taggedTexts } from './helpers.js';

// The test oracle of the segment path: against the local service, the same document translated by
// both methods holds the same translated text, format by format (the samples are real files: Office
// ones made by the docx package and pptxgenjs, see scripts/make-samples.ts). Formats only the
// document layer reads (string files, Markdown) are the segment path's alone.

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');
const FILES = [
  'office/report.docx',
  'office/slides.pptx',
  'office/status.xlsx',
  'video/welcome.srt',
  'localization/app.xliff',
  'localization/strings.xlf',
  'web/index.html',
  'web/cafe.htm',
  'readme.txt',
];
// Office files LibreOffice wrote (committed: CI installs no LibreOffice), whose XML differs from
// what the docx package and pptxgenjs write (runs split by rsids, other namespaces, shared strings).
const RESAVE = path.resolve(import.meta.dirname, '../sync/resave');
const LIBREOFFICE = ['libreoffice-saved.docx', 'libreoffice-slides.pptx', 'libreoffice-status.xlsx'];
const JSON_STRINGS = `${JSON.stringify({ greeting: 'Hello {name}, welcome back.', bye: 'See you soon.' }, null, 2)}\n`;

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('method: segments gives the document path’s text', () => {
  it('for docx, pptx, xlsx (also LibreOffice-made), srt, xliff, html and txt; string files only on the segment path', async () => {
    const files: Record<string, Buffer | string> = Object.fromEntries([
      ...FILES.map((f) => [f, fs.readFileSync(path.join(SAMPLES, f))]),
      ...LIBREOFFICE.map((f) => [f, fs.readFileSync(path.join(RESAVE, f))]),
    ]);
    files['messages.json'] = JSON_STRINGS;
    fx = await createFixture({ files, manifest: bothMethods() });
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    for (const f of [...FILES, ...LIBREOFFICE]) {
      const seg = await segmentTexts(path.join(fx.dir, 'out/seg/de', f));
      expect(seg, f).toEqual(await segmentTexts(path.join(fx.dir, 'out/doc/de', f)));
      // Formatting in place: each output segment's pieces (bold, links, code) are the same.
      expect(await taggedTexts(path.join(fx.dir, 'out/seg/de', f)), f).toEqual(
        await taggedTexts(path.join(fx.dir, 'out/doc/de', f)),
      );
      expect(seg, f).not.toEqual(await segmentTexts(path.join(fx.src, f), 'source'));
    }
    // A string file: translated by the segment path, its keys kept; the document path lists it.
    const json = JSON.parse(fx.read('out/seg/de/messages.json')) as Record<string, string>;
    expect(Object.keys(json)).toEqual(['greeting', 'bye']);
    expect(json.greeting).toContain('{name}');
    expect(json.bye).not.toBe('See you soon.');
    expect(fx.exists('out/doc/de/messages.json')).toBe(false);
    expect(run.unsupported).toEqual([
      expect.objectContaining({
        mapping: 'doc',
        file: 'messages.json',
        message: expect.stringMatching(/only with method: segments/),
      }),
    ]);
  });
});
