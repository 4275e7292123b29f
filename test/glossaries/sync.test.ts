import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GlossaryApi } from '../../src/api/glossaries.js';
import { fromTsv } from '../../src/manifest/glossary-entries.js';
import { runCli } from '../helpers/cli.js';
import { readZip } from '../formats/zip-helpers.js';
import { API_KEY, createFixture, type Fixture } from '../sync/fixture.js';

// The whole pipeline with a glossary kept in git, over real HTTP: sync applies it and sends its id
// with every upload of the targets that use it, the term comes out translated in docx, pptx, html
// and txt; an edited entry shows in `plan` as ~ with the outputs stale ("glossary changed"), is not
// re-billed by a plain sync, and is re-translated on request.

const SAMPLES = path.resolve(import.meta.dirname, '../../samples');
const sample = (rel: string) => fs.readFileSync(path.join(SAMPLES, rel));
const FILES = ['report.docx', 'slides.pptx', 'index.html', 'readme.txt'];

let fx: Fixture;

/** The text of an output, with the XML of docx/pptx parts (where the words are). */
async function outputText(rel: string): Promise<string> {
  const abs = path.join(fx.dir, rel);
  if (!/\.(docx|pptx)$/.test(rel)) return fs.readFileSync(abs, 'utf8');
  const parts = await readZip(abs);
  return [...parts]
    .filter(([name]) => /^(word\/document|ppt\/slides\/slide\d+)\.xml$/.test(name))
    .map(([, b]) => b.toString('utf8'))
    .join('\n');
}

beforeAll(async () => {
  fx = await createFixture({
    manifest: {
      glossaries: { terms: { name: 'Docs terms', files: { 'en-de': 'glossaries/terms.en-de.csv' } } },
      mappings: [
        {
          name: 'docs',
          source: 'src',
          source_lang: 'en',
          output: 'out/{lang}/{path}',
          targets: [{ lang: 'de', glossary: 'terms' }, { lang: 'fr' }],
        },
      ],
    },
    files: {
      'report.docx': sample('office/report.docx'),
      'slides.pptx': sample('office/slides.pptx'),
      'index.html': sample('web/index.html'),
      'readme.txt': sample('readme.txt'),
    },
  });
  fx.write('glossaries/terms.en-de.csv', 'folder,Glossarordner\nchanges,Glossaränderungen\n');
});
afterAll(async () => {
  await fx.close();
});

const plan = () =>
  runCli(['plan', '-c', fx.manifestPath], { env: { LOCSYNC_TEST_SYNC_KEY: API_KEY }, timeoutMs: 120_000 });

describe('sync with a glossary kept in git', () => {
  it('applies the glossary and the term comes out translated in docx, pptx, html and txt', async () => {
    const summary = await fx.sync();
    expect(summary.failed).toEqual([]);
    const state = fx.openState();
    const id = state.glossaries.getGlossary('terms')?.glossary_id;
    state.close();
    expect(id).toBeTruthy();
    for (const f of FILES) {
      const de = await outputText(`out/de/${f}`);
      expect(de, f).toContain('Glossarordner');
      expect(de, f).toContain('Glossaränderungen');
      // The other target has no glossary.
      expect(await outputText(`out/fr/${f}`), f).not.toContain('Glossarordner');
    }
  });

  it('an edited entry: plan shows ~ and the outputs stale (glossary changed); sync re-bills nothing until asked', async () => {
    fx.write('glossaries/terms.en-de.csv', 'folder,Sammelordner\nchanges,Glossaränderungen\n');
    const shown = await plan();
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('~   terms "Docs terms"');
    expect(shown.stdout).toContain('~ en-de: dictionary replaced (1 changed)');
    expect(shown.stdout).toContain('~ folder: Glossarordner → Sammelordner');
    for (const f of FILES) expect(shown.stdout).toContain(`* out/de/${f} (glossary changed)`);
    expect(shown.stdout).not.toContain('* out/fr/');

    const mark = fx.mark();
    const plain = await fx.sync();
    expect(plain.stale).toBe(FILES.length);
    expect(fx.uploads(mark)).toEqual([]);
    expect(await outputText('out/de/readme.txt')).toContain('Glossarordner');

    const again = await fx.sync({ retranslate: 'stale' });
    expect(again.failed).toEqual([]);
    expect(
      fx
        .uploads(mark)
        .map((u) => `${u.filename} ${u.target_lang}`)
        .sort(),
    ).toEqual(FILES.map((f) => `${f} DE`).sort());
    for (const f of FILES) expect(await outputText(`out/de/${f}`), f).toContain('Sammelordner');
  });

  it('drift made through the API blocks the targets that use the glossary (policy fail); a one-off --drift overwrite goes on', async () => {
    const state = fx.openState();
    const id = state.glossaries.getGlossary('terms')!.glossary_id;
    state.close();
    const api = new GlossaryApi(fx.client());
    await api.putDictionary(id, { source_lang: 'en', target_lang: 'de', entries: 'folder\tFremdordner' });
    const mark = fx.mark();
    fx.write('src/readme.txt', 'Open the folder to see the changes. Then close it.\n');
    const blocked = await fx.sync();
    // de uses the drifted glossary: nothing sent for it; fr has none: translated.
    expect(blocked.failed.map((f) => [f.target, f.kind])).toEqual([['de', 'drift']]);
    expect(fx.uploads(mark).map((u) => `${u.filename} ${u.target_lang}`)).toEqual(['readme.txt FR']);
    expect(await api.entries(id, 'en', 'de')).toBe('folder\tFremdordner');
    const st = fx.openState();
    expect(st.recentRuns(1)[0]).toMatchObject({ status: 'failed', reason: 'drift' });
    st.close();

    const summary = await fx.sync({ drift: 'overwrite' });
    expect(summary.failed).toEqual([]);
    expect(fromTsv(await api.entries(id, 'en', 'de')).get('folder')).toBe('Sammelordner');
  });
});
