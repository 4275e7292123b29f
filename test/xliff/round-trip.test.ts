import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { importXliff } from '../../src/xliff/import.js';
import { charactersSent, segmentsMapping, segmentTexts } from '../segments/helpers.js';
import { haveToolkit } from '../segments/memory-helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { toolkitRewrite, withState } from './helpers.js';

// A translator's round trip (docs/xliff.md): the export read and rewritten by translate-toolkit's
// XLIFF store (as a CAT tool would), two targets rewritten and approved there come back as reviewed
// wording and reach the outputs with nothing sent; a unit whose source changed since the export and
// one whose inline tag was dropped are refused by name, the rest of the file still taken.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(!haveToolkit)('xliff export and import', () => {
  it('takes the approved targets as reviewed wording, refuses a changed source and a dropped tag', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: {
        'guide.md': '# Setup\n\nOpen the **lid** first.\n\nThen fill the tank.\n',
        'other.md': 'First paragraph.\n\nSecond paragraph.\n',
      },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const xlf = path.join(f.dir, 'de.xlf');
    const loaded = await f.load();
    const exported = await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
    );
    expect(exported).toMatchObject({ documents: 2, units: 5 });
    expect(f.read('de.xlf')).toContain('<g id="1">lid</g>');
    expect(f.read('de.xlf')).toContain('state="needs-review-translation"');

    toolkitRewrite(xlf, {
      Setup: 'Einrichtung',
      'Then fill the tank.': 'Dann den Tank füllen.',
      'First paragraph.': 'Erster Absatz.',
    });
    // A translator deletes the bold run's tags: refused, with what is missing.
    const xml = f.read('de.xlf');
    f.write(
      'de.xlf',
      xml.replace(
        /(resname="src\/guide.md#2"[\s\S]*?<target[^>]*>)[\s\S]*?(<\/target>)/,
        '$1Zuerst den Deckel öffnen.$2',
      ),
    );
    // The source changes after the export: that unit is refused.
    f.write('src/other.md', 'First paragraph, edited.\n\nSecond paragraph.\n');

    const imported = await withState(f, (o) => importXliff(loaded, o.state, o.state.memory!, [xlf]));
    expect(imported.taken.map((t) => t.document)).toEqual(['src/guide.md', 'src/guide.md']);
    expect(imported.refused.map((r) => r.why)).toEqual([
      'inline tags missing from the target: <g id="0">, <g id="1">, <g id="2">',
      'the source of src/other.md changed since the export: then "First paragraph.", now "First paragraph, edited."',
    ]);
    expect(imported.unchanged).toBe(1);

    f.write('src/other.md', 'First paragraph.\n\nSecond paragraph.\n');
    // A plain sync: the output whose wording came in is written again from the memory, nothing sent.
    const mark = f.mark();
    const written = await f.sync();
    expect(written.failed).toEqual([]);
    expect(written.translated).toBe(1);
    expect(charactersSent(f, mark)).toBe(0);
    const texts = await segmentTexts(path.join(f.dir, 'out/de/guide.md'));
    expect(texts[0]).toBe('Einrichtung');
    expect(texts[2]).toBe('Dann den Tank füllen.');
    // Delivered: the next sync has nothing to do.
    expect((await f.sync()).translated).toBe(0);
  });

  it('writes a sentence worded in one document into every output that has it', async () => {
    fx = await createFixture({
      manifest: { mappings: [segmentsMapping()] },
      files: { 'a.md': 'Shared line.\n\nOnly in a.\n', 'b.md': 'Shared line.\n\nOnly in b.\n' },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const xlf = path.join(f.dir, 'de.xlf');
    const loaded = await f.load();
    await withState(f, (o) => exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all' }));
    toolkitRewrite(xlf, { 'src/a.md#1': 'Geteilte Zeile.' });
    const imported = await withState(f, (o) => importXliff(loaded, o.state, o.state.memory!, [xlf]));
    expect(imported.taken.map((t) => t.document)).toEqual(['src/a.md']);
    expect(imported.outputs).toEqual(['out/de/a.md', 'out/de/b.md']);
    const mark = f.mark();
    expect((await f.sync()).translated).toBe(2);
    expect(charactersSent(f, mark)).toBe(0);
    for (const d of ['a.md', 'b.md'])
      expect((await segmentTexts(path.join(f.dir, 'out/de', d)))[0], d).toBe('Geteilte Zeile.');
  });
});
