import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportXliff } from '../../src/xliff/export.js';
import { readXliffUnits } from '../../src/xliff/reader.js';
import { charactersSent, segmentTexts } from '../segments/helpers.js';
import { haveToolkit } from '../segments/memory-helpers.js';
import { createFixture, runCliOn, uploadedUnits, type Fixture } from '../sync/fixture.js';
import { chooseWording, toolkitRewrite, withChosenWording, withState } from './helpers.js';

// Office documents translated whole by the service (the document method, docs/xliff.md): their
// segments are read from the delivered output by the document layer and exported as bilingual
// XLIFF; a translator's targets (rewritten and approved in translate-toolkit's XLIFF store) come
// back as a person's wording, written into the delivered file by the document layer's writer. No
// upload, no characters: the file opens (a sound zip of well-formed XML parts) and holds the
// translator's text, every other segment as the service delivered it.

const SAMPLES = path.resolve(import.meta.dirname, '../../samples/office');
const DOCUMENTS = ['report.docx', 'slides.pptx'];

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Whether a zip is sound (unzip -t) and each XML part in it well-formed (xmllint). */
function opens(file: string): void {
  execFileSync('/usr/bin/unzip', ['-tqq', file]);
  const parts = execFileSync('/usr/bin/zipinfo', ['-1', file], { encoding: 'utf8' })
    .split('\n')
    .filter((n) => /\.(xml|rels)$/.test(n));
  expect(parts.length).toBeGreaterThan(0);
  for (const part of parts) {
    const xml = execFileSync('/usr/bin/unzip', ['-p', file, part.replace(/[[\]*?]/g, '\\$&')]);
    execFileSync('/usr/bin/xmllint', ['--noout', '-'], { input: xml });
  }
}

/**
 * Both documents delivered by the service, exported, and per document the first unit without
 * inline tags given a translator's wording (approved, in translate-toolkit's XLIFF store);
 * `reword` gives a document's another wording.
 */
async function deliveredAndReworded(reword: Record<string, string> = {}) {
  const f = await createFixture({
    manifest: {
      mappings: [
        {
          name: 'office',
          source: 'src',
          source_lang: 'en',
          output: 'out/{lang}/{path}',
          targets: [{ lang: 'de' }],
        },
      ],
    },
    files: Object.fromEntries(DOCUMENTS.map((d) => [d, fs.readFileSync(path.join(SAMPLES, d))])),
  });
  fx = f;
  const first = f.mark();
  expect((await f.sync()).failed).toEqual([]);
  expect(f.uploads(first)).toHaveLength(DOCUMENTS.length);
  const xlf = path.join(f.dir, 'de.xlf');
  const loaded = await f.load();
  const exported = await withState(f, (o) =>
    exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
  );
  expect(exported.documents).toBe(DOCUMENTS.length);
  const units = readXliffUnits(xlf);
  // The service's wording is each unit's target, to be reviewed.
  expect(units.every((u) => u.target !== undefined)).toBe(true);
  expect(f.read('de.xlf')).toContain('state="needs-review-translation"');

  // Per document, the first unit without inline tags gets a translator's wording.
  const chosen = chooseWording(units);
  expect([...chosen.keys()].sort()).toEqual([...DOCUMENTS].sort());
  for (const [d, wording] of Object.entries(reword)) chosen.get(d)!.wording = wording;
  toolkitRewrite(xlf, Object.fromEntries([...chosen.values()].map((c) => [c.resname, c.wording])));
  return { f, loaded, xlf, chosen };
}

describe.skipIf(!haveToolkit)('xliff round trip of document-path Office files', () => {
  it('exports the delivered docx and pptx, and writes the approved targets into them, nothing bought', async () => {
    const { f, loaded, xlf, chosen } = await deliveredAndReworded();
    const before = new Map<string, string[]>();
    for (const d of DOCUMENTS) before.set(d, await segmentTexts(path.join(f.dir, 'out/de', d)));
    const mark = f.mark();
    const imported = await runCliOn(f, 'xliff', 'import', 'de.xlf');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('2 units taken as reviewed wording, 0 refused');
    const outputs = DOCUMENTS.map((d) => `out/de/${d}`);
    const writtenAt = outputs.map((o) => fs.statSync(path.join(f.dir, o)).mtimeMs);

    // A plain sync buys nothing for them: no upload (an import that left the wording for the sync
    // re-uploaded both documents), no text request; the files stay as the import wrote them.
    const run = await f.sync();
    expect(run.failed).toEqual([]);
    expect(uploadedUnits(f, mark), 'documents uploaded again after the import').toEqual([]);
    expect(charactersSent(f, mark)).toBe(0);
    expect(outputs.map((o) => fs.statSync(path.join(f.dir, o)).mtimeMs)).toEqual(writtenAt);
    // Each file opens and holds the translator's text, every other segment as the service delivered it.
    for (const d of DOCUMENTS) {
      const output = path.join(f.dir, 'out/de', d);
      opens(output);
      const sources = await segmentTexts(path.join(f.src, d), 'source');
      const expected = withChosenWording(before.get(d)!, sources, chosen);
      expect(expected, d).toContain(chosen.get(d)!.wording);
      expect(await segmentTexts(output), d).toEqual(expected);
    }
    // The import said which delivered files it wrote, and left nothing for a sync to write.
    for (const o of outputs) expect(imported.stdout).toContain(`  written: ${o} (`);
    expect(imported.stdout).not.toContain('the next `locsync sync` writes them');
    // Exported again, those units are a person's wording.
    await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
    );
    expect(f.read('de.xlf').match(/state="signed-off"/g)).toHaveLength(DOCUMENTS.length);
    // The files are a person's version now: status lists them, and no conflict holds it up.
    const status = await runCliOn(f, 'status');
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toContain('Outputs edited by people (2; kept, never overwritten)');
    for (const o of outputs) expect(status.stdout).toContain(o);
  });

  it('takes the wording of a deleted output and writes the other files', async () => {
    const { f } = await deliveredAndReworded();
    fs.rmSync(path.join(f.dir, 'out/de/slides.pptx'));
    const imported = await runCliOn(f, 'xliff', 'import', 'de.xlf');
    expect(imported.code, imported.stderr).toBe(0);
    // Only the two targets the translator changed are a person's wording: the service's wording of
    // the slides' other units, exported with them, is not (the export's digest tells them apart).
    expect(imported.stdout).toContain('2 units taken as reviewed wording, 0 refused');
    expect(imported.stdout).toContain('  written: out/de/report.docx (');
    expect(imported.stdout).not.toContain('slides.pptx (');
    expect(f.exists('out/de/slides.pptx')).toBe(false);
  });

  it('refuses a target the output checks refuse: the delivered file and the memory keep the service wording', async () => {
    // The translator pasted an English paragraph into the German report: the language check (one
    // that fails an output by default, docs/qa.md) reads that segment as English.
    const english =
      'This paragraph was pasted from the English original by mistake, and nobody translated it into German before the file was sent back.';
    const { f, loaded, xlf, chosen } = await deliveredAndReworded({ 'report.docx': english });
    const report = path.join(f.dir, 'out/de/report.docx');
    const delivered = fs.readFileSync(report);
    const imported = await runCliOn(f, 'xliff', 'import', 'de.xlf');
    expect(imported.code, imported.stdout + imported.stderr).toBe(1);
    expect(imported.stdout).toContain('1 unit taken as reviewed wording, 1 refused');
    expect(imported.stdout).toMatch(
      /refused: de\.xlf: unit u[0-9a-f]+: not written into out\/de\/report\.docx: output check failed \(language\)/,
    );
    // The delivered report is as the service delivered it; the refused file is in the quarantine.
    expect(fs.readFileSync(report).equals(delivered)).toBe(true);
    const quarantined = path.join(path.dirname(loaded.statePath), 'quarantine/out/de/report.docx');
    expect(await segmentTexts(quarantined)).toContain(english);
    // The slides take their wording.
    expect(imported.stdout).toContain('  written: out/de/slides.pptx (');
    expect(imported.stdout).not.toContain('  written: out/de/report.docx');
    expect(await segmentTexts(path.join(f.dir, 'out/de/slides.pptx'))).toContain(
      chosen.get('slides.pptx')!.wording,
    );
    // Nothing of the refused unit is in the memory: exported again, it is still the service's wording.
    await withState(f, (o) =>
      exportXliff(loaded, o.state, o.state.memory!, { out: xlf, only: 'all', lang: 'de' }),
    );
    const again = readXliffUnits(xlf).find((u) => u.resname === chosen.get('report.docx')!.resname)!;
    expect(again.target?.map((i) => (i.t === 'text' ? i.text : '')).join('')).not.toBe(english);
    expect(f.read('de.xlf').match(/state="signed-off"/g)).toHaveLength(1);
  });
});
