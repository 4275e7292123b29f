import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pptxModule from 'pptxgenjs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDocument, segmentCharacters, taggedText } from '../../src/documents/index.js';
import { makeZip, readZip } from '../formats/zip-helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { segmentsMapping, textRequests } from './helpers.js';

// One segment edited in a document of each format: the next sync sends that segment alone, nothing
// else (the service's request log counts one text per document and their characters; the run packs
// the documents' texts into requests by the service's limits, so they may share one).

// pptxgenjs ships ESM-style types for a CommonJS entry (see scripts/make-samples.ts).
const PptxGenJS = ((pptxModule as unknown as { default?: unknown }).default ??
  pptxModule) as typeof pptxModule.default;

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');

async function slides(closing: string): Promise<Buffer> {
  const pres = new PptxGenJS();
  pres.addSlide().addText('Quarterly update', { x: 0.5, y: 0.4, w: 9, h: 1, bold: true });
  const s = pres.addSlide();
  s.addText('Sales grew in every region.', { x: 0.5, y: 0.5, w: 9, h: 1 });
  s.addText(closing, { x: 0.5, y: 2, w: 9, h: 1 });
  return (await pres.write({ outputType: 'nodebuffer' })) as Buffer;
}

async function spreadsheet(from: string, to: string): Promise<Buffer> {
  const parts = await readZip(path.join(SAMPLES, 'office/status.xlsx'));
  const strings = parts.get('xl/sharedStrings.xml')!.toString('utf8');
  parts.set('xl/sharedStrings.xml', Buffer.from(strings.replace(from, to)));
  return makeZip([...parts.entries()]);
}

const sample = (rel: string) => fs.readFileSync(path.join(SAMPLES, rel), 'utf8');
const HTML = (second: string) =>
  `<!DOCTYPE html>\n<html><body><p>First paragraph.</p><p>Second <b>bold</b> ${second}</p></body></html>\n`;

/** Each file before and after its one edit. */
async function versions(): Promise<Record<string, [Buffer | string, Buffer | string]>> {
  return {
    'notes.txt': ['Line one.\nLine two.\nLine three.\n', 'Line one.\nLine two, revised.\nLine three.\n'],
    'welcome.srt': [
      sample('video/welcome.srt'),
      sample('video/welcome.srt').replace("Let's get started.", "Let's begin."),
    ],
    'page.html': [HTML('paragraph.'), HTML('paragraph, revised.')],
    'strings.xlf': [
      sample('localization/strings.xlf'),
      sample('localization/strings.xlf').replace('Welcome to locsync.', 'Welcome to locsync, friend.'),
    ],
    'status.xlsx': [
      await spreadsheet('In progress', 'In progress'),
      await spreadsheet('In progress', 'Nearly done'),
    ],
    'deck.pptx': [await slides('Thank you for listening.'), await slides('Thank you, see you next quarter.')],
  };
}

/** Characters of the segments in `after` that `before` does not hold (what an edit should send). */
async function editedCharacters(
  name: string,
  before: Buffer | string,
  after: Buffer | string,
): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-edit-'));
  try {
    const read = async (content: Buffer | string) => {
      const file = path.join(dir, `${Math.random()}-${name}`);
      fs.writeFileSync(file, content);
      const doc = await openDocument(file, { format: path.extname(name).slice(1) });
      const out = new Map<string, number>();
      for await (const s of doc.segments()) out.set(taggedText(s), segmentCharacters(s));
      return out;
    };
    const old = await read(before);
    return [...(await read(after)).entries()].filter(([t]) => !old.has(t)).map(([, n]) => n);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('one edited segment per document', () => {
  it('sends only that segment for txt, srt, html, xliff, xlsx and pptx', async () => {
    const v = await versions();
    fx = await createFixture({
      files: Object.fromEntries(Object.entries(v).map(([f, [before]]) => [f, before])),
      manifest: { mappings: [segmentsMapping()] },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const expected: number[] = [];
    for (const [f, [before, after]] of Object.entries(v)) {
      const changed = await editedCharacters(f, before, after);
      expect(changed, f).toHaveLength(1);
      expected.push(...changed);
      fx.write(`src/${f}`, after);
    }
    const mark = fx.mark();
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    expect(run.translated).toBe(6);
    const sent = textRequests(fx, mark);
    expect(sent.reduce((n, r) => n + r.texts, 0)).toBe(6);
    expect(sent.reduce((n, r) => n + r.characters, 0)).toBe(expected.reduce((n, c) => n + c, 0));
    expect(fx.read('out/de/notes.txt')).not.toContain('Line two, revised.');
  });
});
