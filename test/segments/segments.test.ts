import path from 'node:path';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { afterEach, describe, expect, it } from 'vitest';
import { openDocument, segmentCharacters, taggedText } from '../../src/documents/index.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { bothMethods, segmentTexts, textRequests } from './helpers.js';

// method: segments end to end against the local service: only what the segment memory lacks is sent
// (counted at the service's request log), and the outputs hold the same text as the document path's.

const PARAGRAPHS = [
  'The pump starts when the tank is full.',
  'Check the filter every week.',
  'Replace the seal after 500 hours of use.',
  'Call the service desk if the light stays red.',
];

async function docx(paragraphs: string[]): Promise<Buffer> {
  return Packer.toBuffer(
    new Document({
      sections: [
        {
          children: paragraphs.map(
            (p, i) =>
              new Paragraph({
                // The second paragraph has a bold run: it travels as tags and comes back in place.
                children:
                  i === 1
                    ? [
                        new TextRun('Check the '),
                        new TextRun({ text: 'filter', bold: true }),
                        new TextRun(' every week.'),
                      ]
                    : [new TextRun(p)],
              }),
          ),
        },
      ],
    }),
  );
}

const HTML = `<!DOCTYPE html>
<html><head><title>Pump manual</title></head>
<body><h1>Pump manual</h1><p>The pump starts when the tank is <b>full</b>.</p><p>Check the filter every week.</p></body></html>
`;
const TXT = 'The pump starts when the tank is full.\nCheck the filter every week.\nA line of its own.\n';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('method: segments', () => {
  it('translates txt, html and docx through the text endpoint, with the same text as the document path', async () => {
    fx = await createFixture({
      manifest: bothMethods(),
      files: { 'manual.docx': await docx(PARAGRAPHS), 'page.html': HTML, 'notes.txt': TXT },
    });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    const requests = textRequests(fx, 0);
    expect(requests.length).toBeGreaterThan(0);
    // Only the document mapping uploads documents.
    expect(
      fx
        .uploads()
        .map((u) => u.filename)
        .sort(),
    ).toEqual(['manual.docx', 'notes.txt', 'page.html']);
    for (const f of ['manual.docx', 'page.html', 'notes.txt']) {
      const seg = await segmentTexts(path.join(fx.dir, 'out/seg/de', f));
      const doc = await segmentTexts(path.join(fx.dir, 'out/doc/de', f));
      expect(seg, f).toEqual(doc);
      expect(seg, f).not.toEqual(await segmentTexts(path.join(fx.src, f)));
    }
    // Identical segments across documents are sent once ("Check the filter every week." is in all
    // three, but the docx one is in pieces: other tags, another segment).
    const sentChars = requests.reduce((n, r) => n + r.characters, 0);
    const unique = new Map<string, number>();
    for (const f of ['manual.docx', 'page.html', 'notes.txt']) {
      const doc = await openDocument(path.join(fx.src, f), { format: path.extname(f).slice(1) });
      for await (const s of doc.segments()) unique.set(taggedText(s), segmentCharacters(s));
    }
    expect(sentChars).toBe([...unique.values()].reduce((n, c) => n + c, 0));

    // A second run sends nothing.
    const mark = fx.mark();
    await fx.sync();
    expect(textRequests(fx, mark)).toEqual([]);
  });

  it('sends only the edited segment, with its neighbours as context only when it is short', async () => {
    fx = await createFixture({ manifest: bothMethods(), files: { 'manual.docx': await docx(PARAGRAPHS) } });
    await fx.sync();
    // A sentence of its own: translated the same whatever surrounds it, sent without context.
    const edited = [...PARAGRAPHS];
    edited[2] = 'Replace the seal after 400 hours of use.';
    fx.write('src/manual.docx', await docx(edited));
    let mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(textRequests(fx, mark)).toEqual([
      expect.objectContaining({ texts: 1, characters: [...edited[2]!].length, context_characters: 0 }),
    ]);
    const seg = await segmentTexts(path.join(fx.dir, 'out/seg/de/manual.docx'));
    const doc = await segmentTexts(path.join(fx.dir, 'out/doc/de/manual.docx'));
    expect(seg).toEqual(doc);
    // A short one (a heading, a label): its neighbours go with it as context.
    const lines = ['The pump starts when the tank is full.', 'Filter', 'Check it every week.'];
    fx.write('src/notes.txt', `${lines.join('\n')}\n`);
    expect((await fx.sync()).failed).toEqual([]);
    fx.write('src/notes.txt', `${[lines[0], 'Seal', lines[2]].join('\n')}\n`);
    mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    const sent = textRequests(fx, mark);
    expect(sent).toEqual([expect.objectContaining({ texts: 1, characters: 'Seal'.length })]);
    expect(sent[0]!.context_characters).toBe(`${lines[0]}\n${lines[2]}`.length);
  });

  it('the local service bills the text of a tagged segment, never its tags or the context, and refuses a body over 128 KiB', async () => {
    fx = await createFixture({ manifest: bothMethods() });
    const client = fx.client();
    const res = await client.translateText({
      text: ['<g id="0">Press </g><g id="1">Continue</g><x id="2"/>', 'Fish &amp; chips'],
      target_lang: 'DE',
      source_lang: 'EN',
      tag_handling: 'xml',
      context: 'The dialog asks whether to go on.',
    });
    expect(res.translations[0]!.text).toMatch(/^<g id="0">[^<]+<\/g><g id="1">[^<]+<\/g><x id="2"\/>$/);
    expect(textRequests(fx)).toEqual([
      {
        texts: 2,
        characters: 'Press Continue'.length + 'Fish & chips'.length,
        context_characters: 33,
        target_lang: 'DE',
      },
    ]);
    const big = await client
      .translateText({ text: ['x'.repeat(140 * 1024)], target_lang: 'DE' })
      .catch((e: unknown) => e as Error & { status?: number });
    expect((big as { status?: number }).status).toBe(413);
    expect(textRequests(fx)).toHaveLength(1);
  });
});
