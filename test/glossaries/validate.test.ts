import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkManifestFile } from '../../src/manifest/load.js';
import { runCli } from '../helpers/cli.js';
import { tempProject } from '../manifest/project.js';
import { startWatchFixture, waitFor, type WatchFixture } from '../watch/helpers.js';

// Bad glossary input named by file and line: in `validate`, and in watch's live reload (the edit is
// rejected and the previous manifest keeps running).

const MANIFEST = (glossaries: string, target = '      - lang: de\n        glossary: terms\n') => `glossaries:
${glossaries}mappings:
  - name: docs
    source: docs
    source_lang: en
    output: out/{lang}/{path}
    targets:
${target}`;

let project: Awaited<ReturnType<typeof tempProject>> | undefined;
let w: WatchFixture | undefined;
afterEach(async () => {
  await project?.remove();
  project = undefined;
  await w?.close();
  w = undefined;
});

async function problems(files: Record<string, string>): Promise<string[]> {
  project = await tempProject(files);
  const { errors } = await checkManifestFile(path.join(project.dir, 'pipeline.yaml'));
  return errors.map((e) => e.format().replace(project!.dir + '/', ''));
}

describe('glossary validation', () => {
  it('names the file and line of each bad entry of a CSV file and of inline entries', async () => {
    const found = await problems({
      'pipeline.yaml': MANIFEST(`  terms:
    files:
      en-de: terms.en-de.csv
    entries:
      en-fr:
        Save: " Enregistrer"
        Open: ""
      en-it: {}
`),
      'terms.en-de.csv': 'Save,Speichern\nOpen,Öffnen\nSave,Sichern\nClose,\n',
    });
    expect(found).toEqual([
      `pipeline.yaml:7:9: glossaries.terms.entries.en-fr: stray whitespace around the target term " Enregistrer"`,
      'pipeline.yaml:8:9: glossaries.terms.entries.en-fr: empty target term',
      'pipeline.yaml:9:7: glossaries.terms.entries.en-it: no entries (source term: target term)',
      `terms.en-de.csv:3: glossary 'terms' (en-de): duplicate source term "Save" (first on line 1)`,
      `terms.en-de.csv:4: glossary 'terms' (en-de): empty target term`,
    ]);
  });

  it('refuses an unsupported pair, a missing file, a target without source_lang or without its pair', async () => {
    const found = await problems({
      'pipeline.yaml': `glossaries:
  bad:
    entries:
      en-xx: { a: b }
      en-en: { a: b }
    files:
      en-fr: nowhere.csv
  terms:
    entries:
      en-de: { Save: Speichern }
mappings:
  - name: docs
    source: docs
    output: out/{lang}/{path}
    targets:
      - lang: de
        glossary: terms
  - name: more
    source: more
    source_lang: en
    output: translated/{lang}/{path}
    targets:
      - lang: ja
        glossary: terms
      - lang: it
        glossary: term
`,
    });
    expect(found).toEqual([
      expect.stringMatching(
        /^pipeline.yaml:4:7: glossaries.bad.entries: 'en-xx': the service has no glossaries for 'xx'/,
      ),
      `pipeline.yaml:5:7: glossaries.bad.entries: 'en-en': source and target language are the same`,
      expect.stringMatching(
        /^pipeline.yaml:7:14: glossaries.bad.files.en-fr: glossary file 'nowhere.csv' not found/,
      ),
      `pipeline.yaml:17:19: mappings[0].targets[0].glossary: a glossary needs the source language; set source_lang of mapping 'docs'`,
      `pipeline.yaml:24:19: mappings[1].targets[0].glossary: glossary 'terms' has no en-ja entries (it has: en-de); add entries or files for en-ja`,
      `pipeline.yaml:26:19: mappings[1].targets[1].glossary: unknown glossary 'term' (did you mean 'terms'?); defined in glossaries: bad, terms`,
    ]);
  });

  it('`locsync validate` exits 2 and prints file:line for a bad entry', async () => {
    project = await tempProject({
      'pipeline.yaml': MANIFEST('  terms:\n    files:\n      en-de: terms.en-de.tsv\n'),
      'terms.en-de.tsv': 'Save\tSpeichern\nSave\tSichern\n',
    });
    const r = await runCli(['validate', '-c', path.join(project.dir, 'pipeline.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain(
      `${path.join(project.dir, 'terms.en-de.tsv')}:2: glossary 'terms' (en-de): duplicate source term "Save" (first on line 1)`,
    );
  });

  it('a glossary or style-list file that is a link out of the project is refused, its lines never printed; a link inside is followed', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-outside-'));
    try {
      fs.writeFileSync(path.join(outside, 'private.csv'), 'secret-term-4711,geheim\n');
      fs.writeFileSync(path.join(outside, 'house.yaml'), 'language: de\nconfigured_rules: {}\n');
      project = await tempProject({
        'pipeline.yaml': `style_lists:\n  house: { file: styles/house.yaml }\n${MANIFEST(
          '  terms:\n    files:\n      en-de: terms.en-de.csv\n      en-fr: shared/fr.csv\n',
          '      - lang: de\n        glossary: terms\n        style: house\n      - lang: fr\n        glossary: terms\n',
        )}`,
        'glossaries/fr.csv': 'Save,Enregistrer\n',
        'docs/a.txt': 'Save.\n',
      });
      fs.symlinkSync(path.join(outside, 'private.csv'), path.join(project.dir, 'terms.en-de.csv'));
      fs.mkdirSync(path.join(project.dir, 'styles'));
      fs.symlinkSync(path.join(outside, 'house.yaml'), path.join(project.dir, 'styles/house.yaml'));
      // Inside the project: followed.
      fs.symlinkSync(path.join(project.dir, 'glossaries'), path.join(project.dir, 'shared'));

      const { errors } = await checkManifestFile(path.join(project.dir, 'pipeline.yaml'));
      expect(errors.map((e) => e.format().replace(project!.dir + '/', ''))).toEqual([
        expect.stringMatching(
          /^pipeline\.yaml:\d+:\d+: style_lists\.house\.file: style list file 'styles\/house\.yaml' leads outside the project \(.*\) to .*house\.yaml; files the manifest refers to are read only inside it/,
        ),
        expect.stringMatching(
          /^pipeline\.yaml:\d+:\d+: glossaries\.terms\.files\.en-de: glossary file 'terms\.en-de\.csv' leads outside the project/,
        ),
      ]);
      const plan = await runCli(['plan', '-c', path.join(project.dir, 'pipeline.yaml')]);
      expect(plan.code).toBe(2);
      expect(plan.stdout + plan.stderr).not.toContain('secret-term-4711');
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a glossary file that is a FIFO (or a link to one) is refused at once: validate does not hang', async () => {
    project = await tempProject({
      'pipeline.yaml': MANIFEST(
        '  terms:\n    files:\n      en-de: terms.en-de.csv\n      en-fr: pipe.csv\n',
        '      - lang: de\n        glossary: terms\n      - lang: fr\n        glossary: terms\n',
      ),
    });
    execFileSync('mkfifo', [path.join(project.dir, 'pipe.csv')]);
    fs.symlinkSync('pipe.csv', path.join(project.dir, 'terms.en-de.csv'));
    const r = await runCli(['validate', '-c', path.join(project.dir, 'pipeline.yaml')], {
      timeoutMs: 30_000,
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(
      /glossaries\.terms\.files\.en-de: glossary file 'terms\.en-de\.csv' is not a regular file/,
    );
    expect(r.stdout).toMatch(
      /glossaries\.terms\.files\.en-fr: glossary file 'pipe\.csv' is not a regular file/,
    );
  });
});

describe('locsync watch: glossary files', () => {
  it('applies an edited glossary file live (outputs stale, nothing re-billed) and rejects a bad one with its line', async () => {
    w = await startWatchFixture({
      files: { 'a.txt': 'Open the folder.\n' },
      project: { 'terms.en-de.csv': 'folder,Ordner\n' },
      manifest: () => ({
        glossaries: { terms: { files: { 'en-de': 'terms.en-de.csv' } } },
        mappings: [
          {
            name: 'docs',
            source: 'src',
            source_lang: 'en',
            output: 'out/{lang}/{path}',
            targets: [{ lang: 'de', glossary: 'terms' }],
          },
        ],
      }),
    });
    const { fx, runner } = w;
    await waitFor('output', () => fx.exists('out/de/a.txt'));
    await runner.settle();
    expect(fx.read('out/de/a.txt')).toContain('Ordner');
    const before = w.state.glossaries.getGlossary('terms')!;
    const mark = fx.mark();
    const stale: string[] = [];
    runner.events.on('job:stale', (e) => stale.push(e.file));

    const applied = new Promise((resolve) => runner.once('manifest:applied', resolve));
    fs.writeFileSync(path.join(fx.dir, 'terms.en-de.csv'), 'folder,Mappe\n');
    await expect(applied).resolves.toEqual({ mappings: ['docs'] });
    await runner.settle();
    expect(w.state.glossaries.getGlossary('terms')!.hashes['en-de']).not.toBe(before.hashes['en-de']);
    expect(stale).toEqual(['a.txt']);
    expect(fx.uploads(mark)).toEqual([]);

    const rejected = new Promise<{ errors: string[] }>((resolve) =>
      runner.once('manifest:rejected', resolve),
    );
    fs.writeFileSync(path.join(fx.dir, 'terms.en-de.csv'), 'folder,Mappe\nfolder,Ordner\n');
    const { errors } = await rejected;
    expect(errors.join('\n')).toContain(
      `${path.join(fx.dir, 'terms.en-de.csv')}:2: glossary 'terms' (en-de)`,
    );
  });
});
