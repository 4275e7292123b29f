import path from 'node:path';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { afterEach, describe, expect, it } from 'vitest';
import { alignOutputs } from '../../src/memory/align.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { segmentsMapping, segmentTexts, textRequests } from './helpers.js';

// `memory align` (docs/memory.md): translations made before locsync, already at their outputs, seed
// the memory where source and output have the same segments (same order, same inline tags); a
// document where they part is listed with the first place and nothing of it is stored.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A docx of paragraphs, each a list of runs ([text, bold]). */
async function docx(paragraphs: ReadonlyArray<ReadonlyArray<[string, boolean]>>): Promise<Buffer> {
  return Packer.toBuffer(
    new Document({
      sections: [
        {
          children: paragraphs.map(
            (runs) => new Paragraph({ children: runs.map(([text, bold]) => new TextRun({ text, bold })) }),
          ),
        },
      ],
    }),
  );
}

async function align(f: Fixture) {
  const loaded = await f.load();
  const opened = await f.open();
  try {
    return await alignOutputs(loaded, opened.state, opened.state.memory!, {});
  } finally {
    await opened.close();
  }
}

const sentTexts = (f: Fixture) => textRequests(f).reduce((n, r) => n + r.texts, 0);

describe('memory align', () => {
  it('stores the pairs of Markdown and docx outputs that match their sources, lists those that do not with where they part', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: {
        'guide.md': '# Setup\n\nOpen the **lid** first.\n\nThen fill the tank.\n',
        'other.md': 'First paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n',
        'manual.docx': await docx([
          [
            ['Press ', false],
            ['Start', true],
            [' to begin.', false],
          ],
          [['Wait.', false]],
        ]),
        'flat.docx': await docx([
          [
            ['Press ', false],
            ['Stop', true],
            [' to end.', false],
          ],
        ]),
      },
    });
    // What an agency delivered years ago.
    fx.write('out/de/guide.md', '# Einrichtung\n\nZuerst den **Deckel** öffnen.\n\nDann den Tank füllen.\n');
    fx.write('out/de/other.md', 'Erster Absatz.\n\nDritter Absatz.\n');
    fx.write(
      'out/de/manual.docx',
      await docx([
        [
          ['Drücken Sie ', false],
          ['Start', true],
          [', um zu beginnen.', false],
        ],
        [['Warten.', false]],
      ]),
    );
    fx.write('out/de/flat.docx', await docx([[['Drücken Sie Stopp, um zu enden.', false]]]));

    const summary = await align(fx);
    expect(summary).toMatchObject({ aligned: 2, stored: 5, missing: 0 });
    expect(summary.mismatched.map((m) => [m.output, m.why]).sort()).toEqual([
      [
        'out/de/flat.docx',
        'segment 1 (source word/document.xml paragraph 1, output word/document.xml paragraph 1): the inline tags differ (source 3 pieces, output 1)',
      ],
      ['out/de/other.md', 'the source has 3 segments, the output 2 (they part after segment 2)'],
    ]);

    // The sync sends only the documents that did not align, and keeps the agency's wording.
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    expect(sentTexts(fx)).toBe(3 + 1);
    expect(await segmentTexts(path.join(fx.dir, 'out/de/guide.md'))).toEqual([
      'Einrichtung',
      'Zuerst den Deckel öffnen.',
      'Dann den Tank füllen.',
    ]);
    expect(fx.read('out/de/guide.md')).toContain('**Deckel**');
    expect(await segmentTexts(path.join(fx.dir, 'out/de/manual.docx'))).toEqual([
      'Drücken Sie Start, um zu beginnen.',
      'Warten.',
    ]);
    expect(await segmentTexts(path.join(fx.dir, 'out/de/other.md'))).not.toContain('Erster Absatz.');
  });
});
