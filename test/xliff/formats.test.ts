import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { importXliff } from '../../src/xliff/import.js';
import { readXliffUnits } from '../../src/xliff/reader.js';
import { charactersSent, segmentsMapping, segmentTexts } from '../segments/helpers.js';
import { haveToolkit } from '../segments/memory-helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { chooseWording, toolkitRewrite, withChosenWording, withState } from './helpers.js';

// The round trip of every kind of document the segment path writes (docs/xliff.md): txt, html,
// docx (the samples, made by real tools) and the string files JSON, PO and Android resources. One
// unit of each document is rewritten in translate-toolkit's XLIFF store and approved; after the
// import a plain sync writes each into its output, sending nothing, and leaves the rest as it was.

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');
const PO = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#: main.c:3
msgid "Open the file"
msgstr ""

msgid "Quit the program"
msgstr ""
`;
const ANDROID = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="welcome">Welcome back to the library</string>
    <string name="share">Tap to share the photo</string>
</resources>
`;
const JSON_STRINGS = `${JSON.stringify({ title: 'Photo Library', bye: 'See you soon.' }, null, 2)}\n`;
const DOCUMENTS = [
  'readme.txt',
  'index.html',
  'report.docx',
  'messages.json',
  'messages.po',
  'values/strings.xml',
];

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!haveToolkit)('xliff round trip per format', () => {
  it('txt, html, docx, JSON, PO and Android strings: the approved targets reach the outputs, nothing sent', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: {
        'readme.txt': fs.readFileSync(path.join(SAMPLES, 'readme.txt')),
        'index.html': fs.readFileSync(path.join(SAMPLES, 'web/index.html')),
        'report.docx': fs.readFileSync(path.join(SAMPLES, 'office/report.docx')),
        'messages.json': JSON_STRINGS,
        'messages.po': PO,
        'values/strings.xml': ANDROID,
      },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const xlf = path.join(f.dir, 'de.xlf');
    const loaded = await f.load();
    const exported = await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
    );
    expect(exported.documents).toBe(DOCUMENTS.length);

    // Per document, the first unit without inline tags gets a translator's wording.
    const units = readXliffUnits(xlf);
    const chosen = chooseWording(units);
    expect([...chosen.keys()].sort()).toEqual([...DOCUMENTS].sort());
    toolkitRewrite(xlf, Object.fromEntries([...chosen.values()].map((c) => [c.resname, c.wording])));

    const imported = await withState(f, (o) => importXliff(loaded, o.state, o.state.memory!, [xlf]));
    expect(imported.refused).toEqual([]);
    expect(imported.taken.map((t) => t.document).sort()).toEqual(DOCUMENTS.map((d) => `src/${d}`).sort());

    const before = new Map<string, string[]>();
    for (const d of DOCUMENTS) before.set(d, await segmentTexts(path.join(f.dir, 'out/de', d)));
    const mark = f.mark();
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect(run.translated).toBe(DOCUMENTS.length);
    expect(charactersSent(f, mark)).toBe(0);
    // Each segment of a source taken has its wording (in every document that has the sentence: the
    // memory's wording is the source's), every other one what the output had.
    for (const d of DOCUMENTS) {
      const sources = await segmentTexts(path.join(f.src, d), 'source');
      const expected = withChosenWording(before.get(d)!, sources, chosen);
      expect(expected, d).toContain(chosen.get(d)!.wording);
      expect(await segmentTexts(path.join(f.dir, 'out/de', d)), d).toEqual(expected);
    }
  });
});
