import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readXliffUnits } from '../../src/xliff/reader.js';
import { HAS_CHROMIUM, openBrowser } from '../helpers/browser.js';
import { segmentsMapping } from '../segments/helpers.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// Whose wording the segments are (docs/xliff.md): after a translator's round trip, `status` names
// the document with segments reviewed by a person, counting them and the machine translation left.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A Markdown guide synced, exported, two of its three targets reworded by a translator and imported. */
async function reviewedGuide(): Promise<Fixture> {
  const f = await createFixture({
    manifest: { mappings: [segmentsMapping()] },
    files: {
      'guide.md': '# Setup\n\nOpen the lid.\n\nThen fill the tank.\n',
      'other.md': 'Nothing to see here.\n',
    },
  });
  fx = f;
  expect((await f.sync()).failed).toEqual([]);
  const exported = await runCliOn(f, 'xliff', 'export', '--lang', 'de', '-o', 'de.xlf');
  expect(exported.code, exported.stderr).toBe(0);
  const xlf = path.join(f.dir, 'de.xlf');
  const target = (resname: string) =>
    new RegExp(`(resname="${resname}"[\\s\\S]*?<target[^>]*>)[\\s\\S]*?(</target>)`);
  fs.writeFileSync(
    xlf,
    fs
      .readFileSync(xlf, 'utf8')
      .replace(target('src/guide.md#1'), '$1Einrichtung$2')
      .replace(target('src/guide.md#3'), '$1Dann den Tank füllen.$2'),
  );
  const imported = await runCliOn(f, 'xliff', 'import', 'de.xlf');
  expect(imported.code, imported.stdout + imported.stderr).toBe(0);
  expect(imported.stdout).toContain('2 units taken as reviewed wording');
  expect((await f.sync()).failed).toEqual([]);
  return f;
}

describe('whose wording the segments are', () => {
  it('status counts the segments reviewed by a person and the machine translation per document', async () => {
    const f = await reviewedGuide();
    const status = await runCliOn(f, 'status');
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toContain('Segments reviewed by a person (1 document;');
    expect(status.stdout).toContain('  out/de/guide.md: 2 reviewed by a person, 1 machine translation');
    // A document nobody reviewed is not listed.
    expect(status.stdout).not.toContain('out/de/other.md:');
    const json = JSON.parse((await runCliOn(f, 'status', '--json')).stdout);
    expect(json.wording).toEqual([
      expect.objectContaining({
        output: 'out/de/guide.md',
        counts: { person: 2, machine: 1 },
        units: [
          expect.objectContaining({ index: 1, wording: 'person' }),
          expect.objectContaining({ index: 2, wording: 'machine' }),
          expect.objectContaining({ index: 3, wording: 'person' }),
        ],
      }),
    ]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('the review page and whose wording', () => {
  it("links each document to its XLIFF unit ids and tags the translator's wording", async () => {
    const f = await reviewedGuide();
    const units = new Map(readXliffUnits(path.join(f.dir, 'de.xlf')).map((u) => [u.resname, u.id]));
    const json = await runCliOn(f, 'review', '--json');
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout).sections[0].documents.find(
      (d: { output: string }) => d.output === 'out/de/guide.md',
    );
    expect(doc.wording.counts).toEqual({ person: 2, machine: 1 });
    expect(doc.comparison.rows).toEqual([
      expect.objectContaining({ unit: units.get('src/guide.md#1'), next_by: 'person' }),
      expect.objectContaining({ unit: units.get('src/guide.md#3'), next_by: 'person' }),
    ]);

    const file = path.join(f.dir, 'review.html');
    const r = await runCliOn(f, 'review', '-o', file);
    expect(r.code, r.stderr).toBe(0);
    const browser = await openBrowser();
    try {
      await browser.page.goto(pathToFileURL(file).href);
      const page = browser.page;
      expect(browser.errors).toEqual([]);
      const article = page.locator('article.doc[data-output="out/de/guide.md"]');
      expect(await article.locator('p.muted .wording').innerText()).toBe(
        'segments now: 2 reviewed by a person, 1 machine translation',
      );
      // Each row names its unit and links to it in the document's list of every unit.
      const rows = article.locator('tbody tr');
      expect(await rows.count()).toBe(2);
      const first = rows.nth(0);
      expect(await first.locator('td.new .by').innerText()).toBe('reviewed by a person');
      const link = first.locator('a.unit');
      expect(await link.innerText()).toBe(units.get('src/guide.md#1'));
      await link.click();
      const target = page.locator(':target');
      expect(await target.getAttribute('data-unit')).toBe(units.get('src/guide.md#1'));
      expect(await target.isVisible()).toBe(true);
      // The list has every segment's unit, the unchanged one too, with whose wording it is.
      const listed = article.locator('details.units li');
      expect(await listed.evaluateAll((ls) => ls.map((l) => l.getAttribute('data-unit')))).toEqual([
        units.get('src/guide.md#1'),
        units.get('src/guide.md#2'),
        units.get('src/guide.md#3'),
      ]);
      expect(await listed.nth(1).innerText()).toContain('machine translation');
    } finally {
      await browser.close();
    }
  });
});
