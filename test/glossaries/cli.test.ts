import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { GlossaryApi } from '../../src/api/glossaries.js';
import type { RunningService } from '../../src/local-service/types.js';
import { KEY, makeClient, startTestService } from '../api/helpers.js';
import { runCli } from '../helpers/cli.js';
import { tempProject } from '../manifest/project.js';

// `styles apply` (plan shown, --dry-run, --json, asks before deleting: --yes off a terminal), `plan`
// with drift and --drift, and `glossaries pull` as a user runs them, against a local service the
// manifest names by url so that this test can act as "someone else" through the API.

let svc: RunningService;
let otherClient: ServiceClient;
let other: GlossaryApi;
let project: Awaited<ReturnType<typeof tempProject>>;
let manifest: string;

const env = { LOCSYNC_API_KEY: KEY };
const cli = (...args: string[]) => runCli([...args, '-c', manifest], { env, timeoutMs: 120_000 });
const text = (glossaries: string, url: string) => `glossaries:
${glossaries}mappings:
  - name: docs
    source: docs
    source_lang: en
    exclude: ['**/*.md']
    output: out/{lang}/{path}
    targets:
      - lang: de${glossaries.startsWith('  terms:') ? '\n        glossary: terms' : ''}
service:
  url: ${url}
`;
const TERMS = `  terms:
    entries:
      en-de:
        folder: Ordner
`;

beforeAll(async () => {
  svc = await startTestService();
  otherClient = makeClient(svc.url);
  other = new GlossaryApi(otherClient);
  project = await tempProject({ 'docs/notes.md': '# notes\n' });
  manifest = path.join(project.dir, 'pipeline.yaml');
  await writeFile(manifest, text(TERMS, svc.url));
});
afterAll(async () => {
  otherClient.close();
  await svc.close();
  await project.remove();
});

describe('styles apply, plan and glossaries pull', () => {
  it('styles apply --dry-run --json shows the plan and changes nothing; without it, applies', async () => {
    const dry = await cli('styles', 'apply', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    const planned = JSON.parse(dry.stdout) as {
      plan: { glossaries: { actions: Array<{ kind: string; key: string }>; summary: { create: number } } };
      applied: unknown;
    };
    expect(planned.plan.glossaries.actions).toMatchObject([{ kind: 'create', key: 'terms' }]);
    expect(planned.plan.glossaries.summary.create).toBe(1);
    expect(planned.applied).toBeNull();
    expect(await other.list()).toEqual([]);

    const real = await cli('styles', 'apply');
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('+   terms "terms" will be created');
    expect(real.stdout).toContain('Glossaries: 1 created, 0 updated.');
    expect((await other.list()).map((g) => g.name)).toEqual(['terms']);
  });

  it('plan with drift: no "service matches" line, a Drift section; --drift overwrite plans the fix', async () => {
    const [g] = await other.list();
    await other.putDictionary(g!.glossary_id, {
      source_lang: 'en',
      target_lang: 'de',
      entries: 'folder\tMappe',
    });
    const shown = await cli('plan', '--detailed-exitcode');
    expect(shown.code).toBe(3);
    const glossaryPart = shown.stdout.slice(shown.stdout.indexOf('Glossaries:'));
    expect(glossaryPart).not.toContain('no changes: the service matches the YAML');
    expect(glossaryPart).toContain('Drift (glossary entries changed on the service');
    expect(glossaryPart).toContain('~ folder: Ordner → Mappe');
    expect(glossaryPart).toContain('run with --drift overwrite or --drift adopt');

    const overwrite = await cli('plan', '--drift', 'overwrite', '--json');
    const out = JSON.parse(overwrite.stdout) as {
      glossaries: { actions: Array<{ kind: string; notes: string[] }>; drift: Array<{ policy: string }> };
    };
    expect(out.glossaries.drift).toMatchObject([{ policy: 'overwrite' }]);
    expect(out.glossaries.actions).toMatchObject([
      { kind: 'update', notes: ['overwriting entries changed on the service'] },
    ]);

    const bad = await cli('plan', '--drift', 'sometimes');
    expect(bad.code).toBe(2);

    const applied = await cli('styles', 'apply', '--drift', 'overwrite');
    expect(applied.code).toBe(0);
    expect(await other.entries(g!.glossary_id, 'en', 'de')).toBe('folder\tOrdner');
  });

  it('deleting asks first: off a terminal it needs --yes, and nothing is deleted without it', async () => {
    await writeFile(manifest, text('  {}\n', svc.url).replace('glossaries:\n  {}', 'glossaries: {}'));
    const refused = await cli('styles', 'apply');
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('-   terms "terms"');
    expect(refused.stderr).toContain('pass --yes to confirm (nothing was changed)');
    expect(await other.list()).toHaveLength(1);

    const done = await cli('styles', 'apply', '--yes', '--json');
    expect(done.code).toBe(0);
    const out = JSON.parse(done.stdout) as { applied: { glossaries: { summary: { delete: number } } } };
    expect(out.applied.glossaries.summary.delete).toBe(1);
    expect(await other.list()).toEqual([]);
  });

  it('glossaries pull writes the service glossaries as files that round-trip through the manifest', async () => {
    await other.create('Support terms', [
      { source_lang: 'en', target_lang: 'de', entries: 'folder\tOrdner\n"Save", now\t„Speichern“, jetzt' },
      { source_lang: 'en', target_lang: 'fr', entries: 'folder\tdossier' },
    ]);
    const pulled = await cli('glossaries', 'pull');
    expect(pulled.code).toBe(0);
    const de = await readFile(path.join(project.dir, 'glossaries/support-terms.en-de.csv'), 'utf8');
    expect(de).toBe('folder,Ordner\n"""Save"", now","„Speichern“, jetzt"\n');
    expect(pulled.stdout).toContain('en-de: glossaries/support-terms.en-de.csv');
    const json = JSON.parse((await cli('glossaries', 'pull', '--json')).stdout) as { files: unknown[] };
    expect(json.files).toContainEqual(
      expect.objectContaining({
        key: 'support-terms',
        pair: 'en-de',
        file: 'glossaries/support-terms.en-de.csv',
      }),
    );

    // The printed lines, used as they are: the manifest then matches the service (taken over by name).
    const snippet = pulled.stdout.slice(pulled.stdout.indexOf('glossaries:\n') + 'glossaries:\n'.length);
    await writeFile(
      manifest,
      text(snippet, svc.url).replace(
        '      - lang: de',
        '      - lang: de\n        glossary: support-terms\n      - lang: fr\n        glossary: support-terms',
      ),
    );
    const plan = await cli('plan', '--json', '--detailed-exitcode');
    const out = JSON.parse(plan.stdout) as { glossaries: { actions: unknown[]; drift: unknown[] } };
    expect(out.glossaries.actions).toEqual([]);
    expect(out.glossaries.drift).toEqual([]);
  });
});
