import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { importXliff } from '../../src/xliff/import.js';
import { charactersSent, segmentsMapping, segmentTexts } from '../segments/helpers.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { withState } from './helpers.js';

// `xliff export --xliff 2.1 -o <folder>` (docs/xliff.md): a file per target language (2.1 holds one
// per file; one file for two languages is refused with what to do), inline tags as <pc>/<ph>; the
// import reads 2.1 back: a changed target is taken and written by a plain sync with nothing sent,
// a dropped <pc> is refused naming it.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('XLIFF 2.1', () => {
  it('exports a file per language with <pc>/<ph>, and imports the work back', async () => {
    fx = await createFixture({
      manifest: { mappings: [{ ...segmentsMapping(), targets: [{ lang: 'de' }, { lang: 'fr' }] }] },
      files: { 'guide.md': '# Setup\n\nOpen the **lid** and run `make`.\n\nThen fill the tank.\n' },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const loaded = await f.load();
    const exportTo = (out: string) =>
      withState(f, (o) => exportXliff(loaded, o.state, o.state.memory!, { out, only: 'all', xliff: '2.1' }));
    await expect(exportTo(path.join(f.dir, 'all.xlf'))).rejects.toThrow(
      /XLIFF 2\.1 holds one target language per file, and the export has de, fr: name one with --lang, or give -o a folder/,
    );
    const folder = path.join(f.dir, 'xliff') + '/';
    const summary = await exportTo(folder);
    expect(summary.files.map((p) => path.basename(p))).toEqual(['de.xlf', 'fr.xlf']);
    const de = path.join(f.dir, 'xliff/de.xlf');
    const xml = fs.readFileSync(de, 'utf8');
    expect(xml).toContain('version="2.1"');
    expect(xml).toContain('srcLang="en" trgLang="de"');
    expect(xml).toMatch(/<pc id="\d+">lid<\/pc>/);
    expect(xml).toMatch(/<ph id="\d+"\/>/);
    expect(xml).toContain('<segment state="translated">');

    // A translator rewrites two targets: one keeps its tags, one drops the bold run.
    const target = (resname: string) =>
      new RegExp(`(name="${resname}"[\\s\\S]*?<target>)[\\s\\S]*?(</target>)`);
    const edited = xml
      .replace(target('src/guide.md#1'), '$1Einrichtung$2')
      .replace(target('src/guide.md#2'), '$1Den Deckel öffnen.$2')
      .replace(target('src/guide.md#3'), '$1Dann den Tank füllen.$2')
      .replace(/<segment state="translated">/g, '<segment state="final">');
    fs.writeFileSync(de, edited);
    const imported = await withState(f, (o) => importXliff(loaded, o.state, o.state.memory!, [de]));
    expect(imported.taken).toHaveLength(2);
    expect(imported.refused).toEqual([
      expect.objectContaining({
        why: expect.stringMatching(/^inline tags missing from the target: <pc id="\d+">/),
      }),
    ]);

    const mark = f.mark();
    const run = await f.sync();
    expect(run.translated).toBe(1);
    expect(charactersSent(f, mark)).toBe(0);
    const texts = await segmentTexts(path.join(f.dir, 'out/de/guide.md'));
    expect(texts[0]).toBe('Einrichtung');
    expect(texts[2]).toBe('Dann den Tank füllen.');
  });

  it('takes only the changed target of a document whose output is gone', async () => {
    fx = await createFixture({
      manifest: { mappings: [{ ...segmentsMapping(), targets: [{ lang: 'de' }] }] },
      files: { 'guide.md': '# Setup\n\nOpen the lid.\n\nThen fill the tank.\n' },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const f = fx;
    const loaded = await f.load();
    const de = path.join(f.dir, 'de.xlf');
    await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: de, only: 'all', xliff: '2.1', lang: 'de' }),
    );
    const xml = fs.readFileSync(de, 'utf8');
    fs.writeFileSync(
      de,
      xml.replace(/(name="src\/guide\.md#2"[\s\S]*?<target>)[\s\S]*?(<\/target>)/, '$1Den Deckel öffnen.$2'),
    );
    // The output is deleted before the import: the service's wording of the other two units, exported
    // as their targets, is still no person's.
    fs.rmSync(path.join(f.dir, 'out/de/guide.md'));
    const imported = await withState(f, (o) => importXliff(loaded, o.state, o.state.memory!, [de]));
    expect(imported.taken.map((t) => t.document)).toEqual(['src/guide.md']);
    expect(imported.unchanged).toBe(2);
  });
});
