import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { loadManifest } from '../../src/manifest/load.js';
import type { RunningService } from '../../src/local-service/types.js';
import { KEY, makeClient, startTestService } from '../api/helpers.js';
import { runCli } from '../helpers/cli.js';
import { tempProject } from '../manifest/project.js';
import { modifyingRequests } from './helpers.js';

// `locsync plan`, `styles apply` and `styles pull` as a user runs them (child processes), against
// a local service the manifest names by url, so that this test can also act as "someone else".

let svc: RunningService;
let other: ServiceClient;
let project: Awaited<ReturnType<typeof tempProject>>;
let manifest: string;

const env = { LOCSYNC_API_KEY: KEY };
const lists = (rule: string) => `style_lists:
  de-docs:
    name: German docs
    language: de
    configured_rules:
      punctuation:
        quotation_mark: ${rule}
`;
const rest = (url: string) => `mappings:
  - name: docs
    source: docs
    exclude: ['**/*.md']
    output: out/{lang}/{path}
    targets:
      - lang: de
        style: de-docs
service:
  url: ${url}
`;

async function writeManifest(text: string): Promise<void> {
  await writeFile(manifest, text);
}

const cli = (...args: string[]) => runCli([...args, '-c', manifest], { env });

beforeAll(async () => {
  svc = await startTestService();
  other = makeClient(svc.url);
  // No document to translate (only an excluded note): the plan's file part is empty.
  project = await tempProject({ 'docs/notes.md': '# notes\n' });
  manifest = path.join(project.dir, 'pipeline.yaml');
});
afterAll(async () => {
  other.close();
  await svc.close();
  await project.remove();
});

describe('locsync plan / styles apply / styles pull', () => {
  it('plan --detailed-exitcode: 3 with changes pending, 0 after styles apply, 2 on a manifest error', async () => {
    await writeManifest(lists('use_curly_quotation_marks') + rest(svc.url));
    const mark = svc.requests().length;
    const pending = await cli('plan', '--detailed-exitcode');
    expect(pending.stderr).not.toContain('locsync:');
    expect(pending.code).toBe(3);
    expect(pending.stdout).toContain('+   de-docs "German docs" (de) will be created');
    expect(pending.stdout).toContain('Plan: 1 to create, 0 to update, 0 to replace.');
    expect(pending.stdout).toContain('Files: 0 to translate');
    expect(modifyingRequests(svc, mark)).toEqual([]);

    const applied = await cli('styles', 'apply');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete: 1 created, 0 updated, 0 replaced.');

    const clean = await cli('plan', '--detailed-exitcode');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('Plan: 0 to create, 0 to update, 0 to replace.');

    await writeManifest(lists('use_straight_quotation_marks') + rest(svc.url));
    const json = await cli('plan', '--detailed-exitcode', '--json');
    expect(json.code).toBe(3);
    const parsed = JSON.parse(json.stdout) as {
      changes: boolean;
      styles: { actions: Array<{ kind: string; key: string }>; summary: Record<string, number> };
      files: { toTranslate: unknown[] };
    };
    expect(parsed.changes).toBe(true);
    expect(parsed.styles.actions.map((a) => [a.kind, a.key])).toEqual([['update', 'de-docs']]);
    expect(parsed.styles.summary).toMatchObject({ create: 0, update: 1, replace: 0 });
    expect(parsed.files.toTranslate).toEqual([]);

    await writeManifest(
      lists('use_straight_quotation_marks').replace('language', 'langauge') + rest(svc.url),
    );
    const broken = await cli('plan', '--detailed-exitcode');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(`${manifest}:4:5: unknown key 'langauge'`);
  });

  it('drift under policy fail: plan shows it, styles apply exits 1 with the remote diff', async () => {
    // The state holds the list as applied by the test above (curly quotes).
    await writeManifest(lists('use_curly_quotation_marks') + rest(svc.url));
    const id = (await other.listAllStyleRules()).find((s) => s.name === 'German docs')!.style_id;
    await other.patchStyleRules(id, { configured_rules: { numbers: { thousands_separator: 'do_not_use' } } });

    const plan = await cli('plan', '--detailed-exitcode');
    expect(plan.code).toBe(3);
    expect(plan.stdout).toMatch(
      /Drift \(changed on the service since locsync last applied it\):\n {2}! {3}de-docs: version \d+ → \d+/,
    );
    expect(plan.stdout).toContain('+ rule numbers.thousands_separator: do_not_use');

    const mark = svc.requests().length;
    const apply = await cli('styles', 'apply');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'changed on the service since locsync last applied it (drift policy: fail)',
    );
    expect(apply.stderr).toContain('+ rule numbers.thousands_separator: do_not_use');
    expect(modifyingRequests(svc, mark)).toEqual([]);
  });

  it('styles pull writes every list of the service, also ones made elsewhere, ready to use', async () => {
    await writeManifest(lists('use_curly_quotation_marks') + rest(svc.url));
    await other.createStyleRules({
      name: 'Made in the web UI',
      language: 'fr',
      configured_rules: { dates_and_times: { time_format: 'use_24_hour_clock' } },
      custom_instructions: [{ label: 'Tone', prompt: 'Use vous', source_language: 'en' }],
    });
    const out = path.join(project.dir, 'pulled');
    const pulled = await cli('styles', 'pull', '--out', out);
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toContain(
      'created   pulled/made-in-the-web-ui.yaml  "Made in the web UI" (fr, version 1)',
    );
    expect(pulled.stdout).toContain('created   pulled/de-docs.yaml');
    expect(pulled.stdout).toContain('made-in-the-web-ui: { file: pulled/made-in-the-web-ui.yaml }');

    const text = await readFile(path.join(out, 'made-in-the-web-ui.yaml'), 'utf8');
    expect(text).toContain('# Style list "Made in the web UI" pulled from the service');
    // For scripts: the same as JSON (a second pull changes nothing).
    const json = await cli('styles', 'pull', '--out', out, '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      out,
      files: expect.arrayContaining([
        {
          key: 'made-in-the-web-ui',
          file: 'pulled/made-in-the-web-ui.yaml',
          written: 'unchanged',
          name: 'Made in the web UI',
          in_manifest: false,
        },
      ]),
    });
    await writeManifest(
      lists('use_curly_quotation_marks') +
        '  web: { file: pulled/made-in-the-web-ui.yaml }\n' +
        rest(svc.url),
    );
    const web = (await loadManifest(manifest)).styleLists.web!;
    expect(web).toMatchObject({
      name: 'Made in the web UI',
      language: 'fr',
      drift: 'fail',
      configured_rules: { dates_and_times: { time_format: 'use_24_hour_clock' } },
      custom_instructions: [{ label: 'Tone', prompt: 'Use vous', source_language: 'en' }],
    });
  });
});
