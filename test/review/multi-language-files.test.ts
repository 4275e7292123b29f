import { execFileSync } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAll } from './git-in-fixture.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

// The review page of a file that holds several languages: a CSV file with a column per language
// (its columns named by the mapping's csv: settings) and an Apple String Catalog. Each output is
// read in its target language, so the page shows the German translation beside the English source,
// never the source column or the catalog's English a second time.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const CSV = 'id;note;text_en\r\nsave;Button;Save the file\r\nquit;Menu;Quit now\r\n';
const CATALOG = `${JSON.stringify(
  {
    sourceLanguage: 'en',
    strings: {
      Quit: { localizations: { en: { stringUnit: { state: 'translated', value: 'Quit now' } } } },
      Save: { localizations: { en: { stringUnit: { state: 'translated', value: 'Save the file' } } } },
    },
    version: '1.0',
  },
  null,
  2,
).replaceAll('":', '" :')}\n`;

type Part = { kind: string; text: string; code?: true };
type Row = {
  kind: string;
  key?: string;
  source: Part[] | null;
  previous: Part[] | null;
  next: Part[] | null;
};
/** A side's text: as it was (its new words left out) or as it is now (its removed words left out). */
const text = (parts: Part[] | null, as: 'was' | 'is' = 'is') =>
  (parts ?? [])
    .filter((p) => p.kind !== (as === 'is' ? 'del' : 'ins'))
    .map((p) => p.text)
    .join('');

/** Both files translated to German and committed, then `Save the file` changed and synced again. */
async function changedInGit(): Promise<Fixture> {
  const common = { method: 'segments', source_lang: 'en', targets: [{ lang: 'de' }] };
  const f = await createFixture({
    manifest: {
      mappings: [
        {
          name: 'sheet',
          source: 'src/sheet',
          include: ['strings.csv'],
          output: 'out/{lang}/strings.csv',
          csv: { key_column: 'id', source_column: 'text_en', target_column: 'text_{lang}' },
          ...common,
        },
        {
          name: 'app',
          source: 'src/app',
          include: ['Localizable.xcstrings'],
          output: 'out/{lang_bcp47}/Localizable.xcstrings',
          ...common,
        },
      ],
    },
    files: { 'sheet/strings.csv': CSV, 'app/Localizable.xcstrings': CATALOG },
  });
  expect((await f.sync()).failed).toEqual([]);
  commitAll(f, 'first translation');
  f.write('src/sheet/strings.csv', CSV.replace('Save the file', 'Save the document'));
  f.write('src/app/Localizable.xcstrings', CATALOG.replace('Save the file', 'Save the document'));
  expect((await f.sync()).failed).toEqual([]);
  return f;
}

/** The German of each key in the CSV output's text_de column. */
const csvGerman = (csv: string) =>
  Object.fromEntries(
    (parse(csv, { delimiter: ';', columns: true }) as Array<Record<string, string>>).map((r) => [
      r.id!,
      r.text_de!,
    ]),
  );

/** The German of each key in the catalog's de localizations. */
const catalogGerman = (json: string) =>
  Object.fromEntries(
    Object.entries(
      (
        JSON.parse(json) as {
          strings: Record<string, { localizations: Record<string, { stringUnit: { value: string } }> }>;
        }
      ).strings,
    ).map(([k, v]) => [k, v.localizations.de!.stringUnit.value]),
  );

describe('locsync review of files holding several languages', () => {
  it.each([
    ['--since HEAD', ['--since', 'HEAD']],
    ['--since the last run', []],
  ])('%s: a CSV output is read by its target column, a String Catalog by its language', async (_, since) => {
    fx = await changedInGit();
    const f = fx;
    const r = await runCliOn(f, 'review', ...since, '--json');
    expect(r.code, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout).sections[0].documents as Array<{
      output: string;
      error?: string;
      comparison: { rows: Row[] };
    }>;
    const before = (rel: string) => execFileSync('git', ['show', `HEAD:${rel}`], { cwd: f.dir }).toString();
    for (const [output, german, key] of [
      ['out/de/strings.csv', csvGerman, 'save'],
      ['out/de/Localizable.xcstrings', catalogGerman, 'Save'],
    ] as const) {
      const doc = docs.find((d) => d.output === output)!;
      expect(doc.error).toBeUndefined();
      const rows = doc.comparison.rows;
      expect(rows.map((x) => [x.kind, x.key])).toEqual([['changed', key]]);
      const row = rows[0]!;
      expect(text(row.source)).toBe('Save the document');
      expect(text(row.previous, 'was')).toBe(german(before(output))[key]);
      expect(text(row.next)).toBe(german(f.read(output))[key]);
      expect(text(row.next)).not.toBe('Save the document');
    }
  });
});

describe('locsync review of a String Catalog whose targets are written into it', () => {
  it.each([
    ['--since HEAD', ['--since', 'HEAD']],
    ['--since the last run', []],
  ])('%s: each language’s part is read by its language', async (_, since) => {
    fx = await createFixture({
      manifest: {
        mappings: [
          {
            name: 'app',
            source: 'src/app',
            include: ['Localizable.xcstrings'],
            output: 'src/app/{path}',
            method: 'segments',
            source_lang: 'en',
            targets: [{ lang: 'de' }, { lang: 'ja' }],
          },
        ],
      },
      files: { 'app/Localizable.xcstrings': CATALOG },
    });
    const f = fx;
    const rel = 'src/app/Localizable.xcstrings';
    expect((await f.sync()).failed).toEqual([]);
    commitAll(f, 'first translation');
    const before = f.read(rel);
    f.write(rel, before.replace('Save the file', 'Save the document'));
    expect((await f.sync()).failed).toEqual([]);
    const r = await runCliOn(f, 'review', ...since, '--json');
    expect(r.code, r.stderr).toBe(0);
    const docs = JSON.parse(r.stdout).sections[0].documents as Array<{
      output: string;
      language: string;
      state: string;
      error?: string;
      comparison: { rows: Row[] };
    }>;
    // Written into the file itself is where the part belongs: not a person's edit, not a conflict.
    expect(docs.map((d) => d.state)).toEqual(['changed', 'changed']);
    expect(docs.map((d) => [d.output, d.language])).toEqual([
      [`${rel}#de`, 'de'],
      [`${rel}#ja`, 'ja'],
    ]);
    const entry = (json: string, lang: string) =>
      (
        JSON.parse(json) as {
          strings: Record<string, { localizations: Record<string, { stringUnit: { value: string } }> }>;
        }
      ).strings['Save']!.localizations[lang]!.stringUnit.value;
    for (const doc of docs) {
      expect(doc.error).toBeUndefined();
      expect(doc.comparison.rows.map((x) => [x.kind, x.key])).toEqual([['changed', 'Save']]);
      const row = doc.comparison.rows[0]!;
      expect(text(row.source)).toBe('Save the document');
      expect(text(row.previous, 'was')).toBe(entry(before, doc.language));
      expect(text(row.next)).toBe(entry(f.read(rel), doc.language));
      expect(text(row.next)).toContain(`[${doc.language}]`);
    }
  });
});
