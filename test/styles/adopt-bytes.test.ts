import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { loadManifest } from '../../src/manifest/load.js';
import type { RunningService } from '../../src/local-service/types.js';
import { openState, type StateStore } from '../../src/state/store.js';
import { reconcileStyles } from '../../src/styles/reconcile.js';
import { makeClient, startTestService } from '../api/helpers.js';
import { tempProject } from '../manifest/project.js';

// Adopting the service's state of a style list (a one-off --drift adopt over the list's own policy
// fail) changes only the adopted values in the manifest: comments, quoting, flow collections
// (`['**/*']`), blank lines and key order of everything else stay byte for byte.

const MANIFEST = `# yaml-language-server: $schema=./schema/pipeline.schema.json
version: 1

style_lists:
  de-docs:   # German house style
    name: 'German docs'
    language: de
    configured_rules:
      punctuation:
        quotation_mark: use_curly_quotation_marks # „like this“
      dates_and_times: { time_format: use_24_hour_clock }

    custom_instructions:
      - label: Product
        prompt: "Do not translate \\"locsync\\""   # the name stays
      - label: Old
        prompt: Remove me later

mappings:
  - name: docs
    source: docs
    include: ['**/*']
    exclude: [ '*.md' ]
    output: out/{lang}/{path}
    targets:
      - { lang: de, style: de-docs }
`;

let svc: RunningService;
let client: ServiceClient;
let other: ServiceClient;
let state: StateStore;
let project: Awaited<ReturnType<typeof tempProject>>;
let manifestPath: string;

beforeAll(async () => {
  svc = await startTestService();
  client = makeClient(svc.url);
  other = makeClient(svc.url);
  project = await tempProject({ 'pipeline.yaml': MANIFEST });
  manifestPath = path.join(project.dir, 'pipeline.yaml');
  state = openState(path.join(project.dir, '.locsync/state.db'));
});
afterAll(async () => {
  state.close();
  client.close();
  other.close();
  await svc.close();
  await project.remove();
});

describe('drift: adopt into the manifest', () => {
  it('changes only the adopted values, byte for byte elsewhere', async () => {
    const reconcile = async (apply: boolean, drift?: 'adopt') =>
      reconcileStyles({
        loaded: await loadManifest(manifestPath),
        client,
        state,
        apply,
        ...(drift ? { drift } : {}),
      });
    const id = (await reconcile(true)).styleIds['de-docs']!;
    await other.patchStyleRules(id, {
      configured_rules: {
        punctuation: { quotation_mark: 'use_straight_quotation_marks' },
        numbers: { thousands_separator: 'do_not_use' },
      },
    });
    const remote = await other.getStyleRules(id);
    const old = remote.custom_instructions.find((i) => i.label === 'Old')!;
    await other.deleteCustomInstruction(id, old.id);
    await other.addCustomInstruction(id, { label: 'Tone', prompt: 'Use Sie' });

    // The list's own policy is fail; the one-off choice adopts.
    expect((await reconcile(false)).drift).toMatchObject([{ key: 'de-docs', policy: 'fail' }]);
    const plan = await reconcile(true, 'adopt');
    expect(plan.actions).toMatchObject([{ kind: 'adopt', key: 'de-docs' }]);

    const expected = MANIFEST.replace(
      'quotation_mark: use_curly_quotation_marks # „like this“',
      'quotation_mark: use_straight_quotation_marks # „like this“',
    )
      .replace(
        '      dates_and_times: { time_format: use_24_hour_clock }\n',
        '      dates_and_times: { time_format: use_24_hour_clock }\n      numbers:\n        thousands_separator: do_not_use\n',
      )
      .replace(
        '      - label: Old\n        prompt: Remove me later\n',
        '      - label: Tone\n        prompt: Use Sie\n',
      );
    expect(await readFile(manifestPath, 'utf8')).toBe(expected);
    expect((await reconcile(false)).actions).toEqual([]);
  });
});
