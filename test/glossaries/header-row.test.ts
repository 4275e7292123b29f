import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { editEntriesText } from '../../src/styles/glossary-write.js';
import { runCli } from '../helpers/cli.js';
import { tempProject } from '../manifest/project.js';

// A glossary file whose first line names its columns (a spreadsheet's export: `source,target`) is
// not a term "source → target": the line is recognised, skipped and noted by validate. A glossary
// whose real first term reads like a header says so with `header: false`.

const manifest = (header = '') => `glossaries:
  terms:${header}
    files:
      en-de: terms.en-de.csv
      en-fr: terms.en-fr.tsv
mappings:
  - name: docs
    source: docs
    source_lang: en
    output: out/{lang}/{path}
    targets:
      - lang: de
        glossary: terms
      - lang: fr
        glossary: terms
`;

let project: Awaited<ReturnType<typeof tempProject>> | undefined;
afterEach(async () => {
  await project?.remove();
  project = undefined;
});

/** The entries of each pair and the notes, the manifest and the two files given. */
async function loaded(files: { header?: string; csv: string; tsv: string }) {
  project = await tempProject({
    'pipeline.yaml': manifest(files.header),
    'terms.en-de.csv': files.csv,
    'terms.en-fr.tsv': files.tsv,
    'docs/a.txt': 'Save the file.\n',
  });
  const r = await checkManifestFile(path.join(project.dir, 'pipeline.yaml'));
  expect(r.errors).toEqual([]);
  const d = r.loaded!.glossaries!.terms!.dictionaries;
  return {
    de: Object.fromEntries(d['en-de']!.entries),
    fr: Object.fromEntries(d['en-fr']!.entries),
    notes: r.notes.map((n) => n.format().replace(project!.dir + '/', '')),
  };
}

describe('a glossary file with a header row', () => {
  it.each([
    ['source,target', 'Source\tTarget'],
    ['Term,Translation', 'term\ttranslation'],
    ['en,de', 'EN\tfr-FR'],
    ['source,target,source_lang,target_lang', 'source term\ttarget term'],
  ])('%s / %s: skipped, with a note', async (csvHeader, tsvHeader) => {
    const got = await loaded({
      csv: `${csvHeader}\nSave,Speichern\n`,
      tsv: `${tsvHeader}\nSave\tEnregistrer\n`,
    });
    expect(got.de).toEqual({ Save: 'Speichern' });
    expect(got.fr).toEqual({ Save: 'Enregistrer' });
    expect(got.notes).toEqual([
      expect.stringMatching(
        /^terms\.en-de\.csv:1: glossary 'terms' \(en-de\): the first line \(.+\) names the columns: skipped as a header, not an entry \(set header: false/,
      ),
      expect.stringMatching(/^terms\.en-fr\.tsv:1: glossary 'terms' \(en-fr\): the first line \(.+<TAB>.+\)/),
    ]);
  });

  it('a first line that is a term stays one, without a note', async () => {
    const got = await loaded({ csv: 'Save,Speichern\nsource,Quelle\n', tsv: 'Open\tOuvrir\n' });
    expect(got.de).toEqual({ Save: 'Speichern', source: 'Quelle' });
    expect(got.notes).toEqual([]);
  });

  it('header: false keeps a real first term "source"; header: true skips any first line', async () => {
    const files = { csv: 'source,source\ntarget,Ziel\n', tsv: 'Begriff\tTerme\nSave\tEnregistrer\n' };
    const off = await loaded({ ...files, header: '\n    header: false' });
    expect(off.de).toEqual({ source: 'source', target: 'Ziel' });
    expect(off.fr).toEqual({ Begriff: 'Terme', Save: 'Enregistrer' });
    expect(off.notes).toEqual([]);
    await project?.remove();
    const on = await loaded({ ...files, header: '\n    header: true' });
    expect(on.de).toEqual({ target: 'Ziel' });
    expect(on.fr).toEqual({ Save: 'Enregistrer' });
    expect(on.notes).toEqual([]);
  });

  it('locsync validate says what it did (text and --json), exit 0', async () => {
    project = await tempProject({
      'pipeline.yaml': manifest(),
      'terms.en-de.csv': 'source,target\nSave,Speichern\n',
      'terms.en-fr.tsv': 'Save\tEnregistrer\n',
      'docs/a.txt': 'Save the file.\n',
    });
    const file = path.join(project.dir, 'pipeline.yaml');
    const text = await runCli(['validate', '-c', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `${path.join(project.dir, 'terms.en-de.csv')}:1: note: glossary 'terms' (en-de): the first line (source,target) names the columns: skipped as a header`,
    );
    const json = JSON.parse((await runCli(['validate', '-c', file, '--json'])).stdout);
    expect(json.notes).toEqual([
      expect.objectContaining({ line: 1, message: expect.stringContaining('skipped') }),
    ]);
  });

  it('drift: adopt rewrites the entries and keeps the header row', () => {
    const entries = new Map([
      ['Save', 'Sichern'],
      ['Open', 'Öffnen'],
    ]);
    expect(editEntriesText('source,target\nSave,Speichern\n', 'csv', entries)).toBe(
      'source,target\nSave,Sichern\nOpen,Öffnen\n',
    );
    // With header: false the first row is an entry like any other (here gone from the service).
    expect(editEntriesText('source,source\nSave,Speichern\n', 'csv', entries, false)).toBe(
      'Save,Sichern\nOpen,Öffnen\n',
    );
  });
});
