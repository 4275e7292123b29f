import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { GlossaryApi } from '../../src/api/glossaries.js';
import { loadManifest } from '../../src/manifest/load.js';
import type { RunningService } from '../../src/local-service/types.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { fromTsv } from '../../src/manifest/glossary-entries.js';
import { GlossaryDriftError } from '../../src/styles/glossary-reconcile.js';
import { reconcileTerminology, type TerminologyPlan } from '../../src/styles/terminology.js';
import type { DriftPolicy } from '../../src/manifest/types.js';
import { makeClient, startTestService } from '../api/helpers.js';
import { tempProject } from '../manifest/project.js';

// A glossary kept in git (a CSV file for en-de, inline entries for en-fr) reconciled with the local
// service over real HTTP: created, updated when an entry is edited, drift made through the API by
// "someone else" handled by each policy, deleted when removed from the manifest.

let svc: RunningService;
let client: ServiceClient;
let other: GlossaryApi;
let otherClient: ServiceClient;
let project: Awaited<ReturnType<typeof tempProject>>;
let state: StateStore;
let manifestPath: string;
let csvPath: string;

const CSV = 'folder,Ordner\n"Save, then close",Speichern und schließen\n\ntranslation,Übersetzung\n';
const manifest = (glossaries: string) => `# terminology of the docs team
glossaries:
${glossaries}mappings:
  - name: docs
    source: docs
    source_lang: en
    include: ['**/*']
    output: out/{lang}/{path}
    targets:
      - lang: de
        glossary: terms
      - lang: fr
        glossary: terms   # inline entries
`;
const TERMS = `  terms:
    name: Docs terms
    files:
      en-de: glossaries/terms.en-de.csv
    entries:
      en-fr:
        folder: dossier   # not "répertoire"
        "Save": Enregistrer
`;

async function reconcile(apply: boolean, drift?: DriftPolicy): Promise<TerminologyPlan> {
  return reconcileTerminology({
    loaded: await loadManifest(manifestPath),
    client,
    state,
    apply,
    ...(drift ? { drift } : {}),
  });
}

async function remoteEntries(id: string, pair: string): Promise<Map<string, string>> {
  const [s, t] = pair.split('-') as [string, string];
  return fromTsv(await other.entries(id, s, t));
}

beforeAll(async () => {
  svc = await startTestService();
  client = makeClient(svc.url);
  otherClient = makeClient(svc.url);
  other = new GlossaryApi(otherClient);
  project = await tempProject({
    'pipeline.yaml': manifest(TERMS),
    'glossaries/terms.en-de.csv': CSV,
    'docs/a.txt': 'A folder.\n',
  });
  manifestPath = path.join(project.dir, 'pipeline.yaml');
  csvPath = path.join(project.dir, 'glossaries/terms.en-de.csv');
  state = openState(path.join(project.dir, '.locsync', 'state.db'));
});
afterAll(async () => {
  state.close();
  client.close();
  otherClient.close();
  await svc.close();
  await project.remove();
});

describe('glossary reconcile', () => {
  let id = '';

  it('plans a create with every pair, changes nothing, then creates it', async () => {
    const plan = await reconcile(false);
    expect(plan.glossaries.actions).toMatchObject([
      {
        kind: 'create',
        key: 'terms',
        name: 'Docs terms',
        changes: [
          { pair: 'en-de', op: 'add', diff: { added: expect.any(Array) } },
          { pair: 'en-fr', op: 'add' },
        ],
      },
    ]);
    expect(await other.list()).toEqual([]);

    const applied = await reconcile(true);
    id = applied.glossaries.glossaryIds.terms!;
    expect(id).toBeTruthy();
    const listed = await other.list();
    expect(
      listed.map((g) => [g.name, g.dictionaries.map((d) => `${d.source_lang}-${d.target_lang}`).sort()]),
    ).toEqual([['Docs terms', ['en-de', 'en-fr']]]);
    expect(await remoteEntries(id, 'en-de')).toEqual(
      new Map([
        ['folder', 'Ordner'],
        ['Save, then close', 'Speichern und schließen'],
        ['translation', 'Übersetzung'],
      ]),
    );
    expect(state.glossaries.getGlossary('terms')?.glossary_id).toBe(id);

    const again = await reconcile(false);
    expect(again.glossaries.actions).toEqual([]);
    expect(again.glossaries.drift).toEqual([]);
  });

  it('an edited entry: ~ the pair replaced with counts, only that pair changed (and its outputs stale-to-be)', async () => {
    await writeFile(csvPath, CSV.replace('folder,Ordner', 'folder,Verzeichnis') + 'sync,Abgleich\n');
    const plan = await reconcile(false);
    expect(plan.glossaries.actions).toHaveLength(1);
    const action = plan.glossaries.actions[0]!;
    expect(action).toMatchObject({ kind: 'update', glossary_id: id });
    expect(action.changes).toEqual([
      {
        pair: 'en-de',
        op: 'replace',
        diff: { added: [['sync', 'Abgleich']], removed: [], changed: [['folder', 'Ordner', 'Verzeichnis']] },
      },
    ]);
    expect(plan.glossaries.changedPairs).toEqual({ terms: ['en-de'] });
    // The plan changed nothing.
    expect((await remoteEntries(id, 'en-de')).get('folder')).toBe('Ordner');

    await reconcile(true);
    expect((await remoteEntries(id, 'en-de')).get('folder')).toBe('Verzeichnis');
    expect((await remoteEntries(id, 'en-de')).get('sync')).toBe('Abgleich');
    expect((await reconcile(false)).glossaries.actions).toEqual([]);
  });

  it('drift made through the API: fail stops before anything changes', async () => {
    await other.putDictionary(id, { source_lang: 'en', target_lang: 'de', entries: 'folder\tMappe' });
    const plan = await reconcile(false);
    expect(plan.glossaries.drift).toMatchObject([{ key: 'terms', policy: 'fail' }]);
    expect(plan.glossaries.drift[0]!.changes[0]!.diff.changed).toEqual([['folder', 'Verzeichnis', 'Mappe']]);

    const before = await readFile(csvPath, 'utf8');
    await expect(reconcile(true)).rejects.toBeInstanceOf(GlossaryDriftError);
    expect(await remoteEntries(id, 'en-de')).toEqual(new Map([['folder', 'Mappe']]));
    expect(await readFile(csvPath, 'utf8')).toBe(before);
  });

  it('--drift overwrite makes the service match the files again', async () => {
    await reconcile(true, 'overwrite');
    expect((await remoteEntries(id, 'en-de')).get('folder')).toBe('Verzeichnis');
    expect((await reconcile(false)).glossaries.drift).toEqual([]);
  });

  it('--drift adopt writes the service entries into the CSV and the inline entries, byte for byte elsewhere', async () => {
    const csvBefore = await readFile(csvPath, 'utf8');
    const yamlBefore = await readFile(manifestPath, 'utf8');
    const de = await remoteEntries(id, 'en-de');
    de.set('folder', 'Mappe');
    de.delete('translation');
    await other.putDictionary(id, {
      source_lang: 'en',
      target_lang: 'de',
      entries: [...de].map(([s, t]) => `${s}\t${t}`).join('\n'),
    });
    await other.putDictionary(id, {
      source_lang: 'en',
      target_lang: 'fr',
      entries: 'folder\tclasseur\nSave\tEnregistrer\nPrint\tImprimer',
    });

    const plan = await reconcile(true, 'adopt');
    expect(plan.glossaries.actions).toMatchObject([{ kind: 'adopt', key: 'terms' }]);
    expect(await readFile(csvPath, 'utf8')).toBe(
      csvBefore.replace('folder,Verzeichnis', 'folder,Mappe').replace('translation,Übersetzung\n', ''),
    );
    expect(await readFile(manifestPath, 'utf8')).toBe(
      yamlBefore
        .replace('folder: dossier   # not "répertoire"', 'folder: classeur   # not "répertoire"')
        .replace('        "Save": Enregistrer\n', '        "Save": Enregistrer\n        Print: Imprimer\n'),
    );
    const next = await reconcile(false);
    expect(next.glossaries.actions).toEqual([]);
    expect(next.glossaries.drift).toEqual([]);
  });

  it('a glossary removed from the manifest is deleted from the service', async () => {
    const text = await readFile(manifestPath, 'utf8');
    await writeFile(
      manifestPath,
      manifest('  {}\n')
        .replace(/\n {8}glossary: terms.*/g, '')
        .replace('glossaries:\n  {}', 'glossaries: {}'),
    );
    const plan = await reconcile(false);
    expect(plan.glossaries.actions).toMatchObject([{ kind: 'delete', key: 'terms', glossary_id: id }]);
    await reconcile(true);
    expect(await other.list()).toEqual([]);
    expect(state.glossaries.getGlossary('terms')).toBeUndefined();
    await writeFile(manifestPath, text);
  });
});
