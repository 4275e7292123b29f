import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import type { RunningService } from '../../src/local-service/types.js';
import { DriftError } from '../../src/styles/reconcile.js';
import { makeClient, startTestService } from '../api/helpers.js';
import { modifyingRequests, styleProject, type StyleProject } from './helpers.js';

// The reconciler against the local service over real HTTP, with a real state file.

let svc: RunningService;
let other: ServiceClient; // someone editing lists elsewhere (the web UI)
const projects: StyleProject[] = [];

// A service of its own per test: lists of one test must not be found by name in another.
beforeEach(async () => {
  svc = await startTestService();
  other = makeClient(svc.url);
});
afterEach(async () => {
  await Promise.all(projects.splice(0).map((p) => p.close()));
  other.close();
  await svc.close();
});

async function project(lists: string, files: Record<string, string> = {}): Promise<StyleProject> {
  const p = await styleProject(svc, lists, files);
  projects.push(p);
  return p;
}

const DE = `  de-docs:
    name: German docs
    language: de
    configured_rules:
      dates_and_times:
        time_format: use_24_hour_clock
      punctuation:
        quotation_mark: use_curly_quotation_marks
    custom_instructions:
      - label: Product
        prompt: Do not translate "locsync"
      - label: Tone
        prompt: Be brief
`;

describe('reconcileStyles', () => {
  it('plans a create without touching anything, then creates the list and records it', async () => {
    const p = await project(DE);
    const mark = svc.requests().length;
    const plan = await p.reconcile(false);
    expect(plan.actions.map((a) => [a.kind, a.key])).toEqual([['create', 'de-docs']]);
    expect(plan.actions[0]!.changes.map((c) => `${c.op} ${c.what} ${c.key}`)).toEqual([
      'add rule dates_and_times.time_format',
      'add rule punctuation.quotation_mark',
      'add instruction Product',
      'add instruction Tone',
    ]);
    expect(plan.styleIds).toEqual({});
    expect(modifyingRequests(svc, mark)).toEqual([]);
    expect(p.state.allStyles()).toEqual([]);

    const applied = await p.reconcile(true);
    expect(modifyingRequests(svc, mark)).toEqual(['POST /v3/style_rules']);
    const id = applied.styleIds['de-docs']!;
    const remote = await other.getStyleRules(id);
    expect(remote).toMatchObject({
      name: 'German docs',
      language: 'de',
      version: 1,
      configured_rules: {
        dates_and_times: { time_format: 'use_24_hour_clock' },
        punctuation: { quotation_mark: 'use_curly_quotation_marks' },
      },
    });
    expect(remote.custom_instructions.map((i) => i.label)).toEqual(['Product', 'Tone']);
    expect(p.state.getStyle('de-docs')).toMatchObject({ style_id: id, version: 1, name: 'German docs' });
    expect(p.state.getStyle('de-docs')!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a second apply with nothing changed sends no modifying request and keeps every version', async () => {
    const p = await project(DE);
    await p.reconcile(true);
    const before = p.state.getStyle('de-docs')!;
    const mark = svc.requests().length;
    const plan = await p.reconcile(true);
    expect(plan.actions).toEqual([]);
    expect(plan.changedKeys).toEqual([]);
    expect(modifyingRequests(svc, mark)).toEqual([]);
    expect(svc.requests().slice(mark).length).toBeGreaterThan(0); // it did look (GET)
    expect((await other.getStyleRules(before.style_id)).version).toBe(before.version);
    expect(p.state.getStyle('de-docs')).toEqual(before);
  });

  it('updates the name and added or changed rules with one PATCH', async () => {
    const p = await project(DE);
    const { styleIds } = await p.reconcile(true);
    await p.write(
      DE.replace('German docs', 'German documentation').replace(
        'use_curly_quotation_marks',
        'use_straight_quotation_marks\n      numbers:\n        thousands_separator: do_not_use',
      ),
    );
    const plan = await p.reconcile(false);
    expect(plan.actions[0]!.kind).toBe('update');
    expect(plan.changedKeys).toEqual(['de-docs']);
    const mark = svc.requests().length;
    await p.reconcile(true);
    const id = styleIds['de-docs']!;
    expect(modifyingRequests(svc, mark)).toEqual([`PATCH /v3/style_rules/${id}`]);
    const remote = await other.getStyleRules(id);
    expect(remote.name).toBe('German documentation');
    expect(remote.configured_rules).toEqual({
      dates_and_times: { time_format: 'use_24_hour_clock' },
      punctuation: { quotation_mark: 'use_straight_quotation_marks' },
      numbers: { thousands_separator: 'do_not_use' },
    });
    expect(p.state.getStyle('de-docs')!.version).toBe(remote.version);
  });

  it('a rename alone is applied but does not make outputs stale', async () => {
    const p = await project(DE);
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    const hash = p.state.getStyle('de-docs')!.hash;
    await p.write(DE.replace('German docs', 'Deutsch'));
    const plan = await p.reconcile(true);
    expect(plan.actions.map((a) => a.changes.map((c) => c.what))).toEqual([['name']]);
    expect(plan.changedKeys).toEqual([]);
    expect((await other.getStyleRules(id)).name).toBe('Deutsch');
    expect(p.state.getStyle('de-docs')).toMatchObject({ name: 'Deutsch', hash });
  });

  it('a rule removed from the YAML is removed with PUT configured_rules', async () => {
    const p = await project(DE);
    const { styleIds } = await p.reconcile(true);
    await p.write(DE.replace('      punctuation:\n        quotation_mark: use_curly_quotation_marks\n', ''));
    const plan = await p.reconcile(false);
    expect(plan.actions[0]!.notes.join()).toContain('PUT configured_rules');
    const mark = svc.requests().length;
    await p.reconcile(true);
    const id = styleIds['de-docs']!;
    expect(modifyingRequests(svc, mark)).toEqual([`PUT /v3/style_rules/${id}/configured_rules`]);
    expect((await other.getStyleRules(id)).configured_rules).toEqual({
      dates_and_times: { time_format: 'use_24_hour_clock' },
    });
  });

  it('without PUT configured_rules on the service, a removed rule replaces the list', async () => {
    const p = await project(DE);
    const old = (await p.reconcile(true)).styleIds['de-docs']!;
    await p.write(DE.replace('      dates_and_times:\n        time_format: use_24_hour_clock\n', ''));
    svc.addFaults({
      match: { method: 'PUT', path: `/v3/style_rules/${old}/configured_rules` },
      status: 404,
      count: 1,
    });
    const mark = svc.requests().length;
    const plan = await p.reconcile(true);
    svc.clearFaults();
    const fresh = plan.styleIds['de-docs']!;
    expect(fresh).not.toBe(old);
    expect(plan.actions[0]).toMatchObject({ kind: 'replace', key: 'de-docs' });
    expect(plan.actions[0]!.notes.join()).toContain('the service has no PUT configured_rules');
    expect(modifyingRequests(svc, mark)).toEqual([
      `PUT /v3/style_rules/${old}/configured_rules`,
      'POST /v3/style_rules',
      `DELETE /v3/style_rules/${old}`,
    ]);
    await expect(other.getStyleRules(old)).rejects.toMatchObject({ status: 404 });
    const remote = await other.getStyleRules(fresh);
    expect(remote.configured_rules).toEqual({ punctuation: { quotation_mark: 'use_curly_quotation_marks' } });
    expect(remote.custom_instructions.map((i) => i.label)).toEqual(['Product', 'Tone']);
    expect(p.state.getStyle('de-docs')!.style_id).toBe(fresh);
  });

  it('custom instructions matched by label: added, replaced and deleted', async () => {
    const p = await project(DE);
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    const before = await other.getStyleRules(id);
    const tone = before.custom_instructions.find((i) => i.label === 'Tone')!;
    const product = before.custom_instructions.find((i) => i.label === 'Product')!;
    await p.write(
      DE.replace('      - label: Product\n        prompt: Do not translate "locsync"\n', '').replace(
        '        prompt: Be brief\n',
        '        prompt: Be brief and friendly\n      - label: Units\n        prompt: Use SI units\n        source_language: en\n',
      ),
    );
    const plan = await p.reconcile(false);
    expect(plan.actions[0]!.changes.map((c) => `${c.op} ${c.key}`)).toEqual([
      'change Tone',
      'add Units',
      'remove Product',
    ]);
    const mark = svc.requests().length;
    await p.reconcile(true);
    expect(modifyingRequests(svc, mark)).toEqual([
      `DELETE /v3/style_rules/${id}/custom_instructions/${product.id}`,
      `PUT /v3/style_rules/${id}/custom_instructions/${tone.id}`,
      `POST /v3/style_rules/${id}/custom_instructions`,
    ]);
    const after = await other.getStyleRules(id);
    expect(
      after.custom_instructions.map(({ label, prompt, source_language }) => ({
        label,
        prompt,
        source_language,
      })),
    ).toEqual([
      { label: 'Tone', prompt: 'Be brief and friendly', source_language: undefined },
      { label: 'Units', prompt: 'Use SI units', source_language: 'en' },
    ]);
    expect(after.custom_instructions.find((i) => i.label === 'Tone')!.id).toBe(tone.id);
    expect(p.state.getStyle('de-docs')!.version).toBe(after.version);
  });

  it('a language change replaces the list', async () => {
    const p = await project(DE);
    const old = (await p.reconcile(true)).styleIds['de-docs']!;
    await p.write(DE.replace('language: de', 'language: fr'));
    // The target is German: keep the manifest valid by pointing no target at the list (none does).
    const plan = await p.reconcile(false);
    expect(plan.actions.map((a) => a.kind)).toEqual(['replace']);
    expect(plan.actions[0]!.notes.join()).toContain('language changes (de → fr)');
    const applied = await p.reconcile(true);
    expect(applied.styleIds['de-docs']).not.toBe(old);
    expect((await other.getStyleRules(applied.styleIds['de-docs']!)).language).toBe('fr');
    await expect(other.getStyleRules(old)).rejects.toMatchObject({ status: 404 });
  });

  it('a list removed from the manifest is deleted from the service and the state', async () => {
    const p = await project(DE + '  extra:\n    language: fr\n');
    const ids = (await p.reconcile(true)).styleIds;
    await p.write(DE);
    const plan = await p.reconcile(false);
    expect(plan.actions.map((a) => [a.kind, a.key])).toEqual([['delete', 'extra']]);
    const mark = svc.requests().length;
    await p.reconcile(true);
    expect(modifyingRequests(svc, mark)).toEqual([`DELETE /v3/style_rules/${ids.extra}`]);
    expect(p.state.getStyle('extra')).toBeUndefined();
    expect(p.state.getStyle('de-docs')).toBeDefined();
  });

  it('a list deleted on the service is created again, and says so', async () => {
    const p = await project(DE);
    const old = (await p.reconcile(true)).styleIds['de-docs']!;
    await other.deleteStyleRules(old);
    const plan = await p.reconcile(false);
    expect(plan.actions[0]).toMatchObject({ kind: 'create', key: 'de-docs' });
    expect(plan.actions[0]!.notes.join()).toContain(`style_id ${old} was deleted on the service`);
    const applied = await p.reconcile(true);
    expect(applied.styleIds['de-docs']).not.toBe(old);
    expect(p.state.getStyle('de-docs')!.style_id).toBe(applied.styleIds['de-docs']);
  });

  it('takes over a list of the same name and language when the state does not know it', async () => {
    const name = 'Pulled list';
    const existing = await other.createStyleRules({ name, language: 'fr' });
    const p = await project(
      `  fr:\n    name: ${name}\n    language: fr\n    custom_instructions:\n      - { label: A, prompt: B }\n`,
    );
    const plan = await p.reconcile(false);
    expect(plan.actions[0]).toMatchObject({ kind: 'update', style_id: existing.style_id });
    await p.reconcile(true);
    expect(p.state.getStyle('fr')!.style_id).toBe(existing.style_id);
  });

  it('applies only the lists asked for, and rejects unknown keys', async () => {
    const p = await project(DE + '  extra:\n    language: fr\n');
    const plan = await p.reconcile(true, ['extra']);
    expect(plan.actions.map((a) => a.key)).toEqual(['extra']);
    expect(p.state.getStyle('de-docs')).toBeUndefined();
    await expect(p.reconcile(true, ['de-doc'])).rejects.toThrow(
      /unknown style list 'de-doc' \(did you mean 'de-docs'\?\)/,
    );
  });
});

describe('drift: the list was changed on the service since the last apply', () => {
  const withPolicy = (policy: string) =>
    DE.replace('    language: de\n', `    language: de\n    drift: ${policy}\n`);

  it('policy fail (default) stops before changing anything and shows what changed remotely', async () => {
    const p = await project(DE);
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    await other.patchStyleRules(id, {
      configured_rules: { punctuation: { quotation_mark: 'use_straight_quotation_marks' } },
    });
    const version = (await other.getStyleRules(id)).version;

    const plan = await p.reconcile(false);
    expect(plan.actions).toEqual([]);
    expect(plan.drift).toHaveLength(1);
    expect(plan.drift[0]).toMatchObject({
      key: 'de-docs',
      policy: 'fail',
      appliedVersion: 1,
      remoteVersion: version,
    });

    const mark = svc.requests().length;
    const err = await p.reconcile(true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DriftError);
    const message = (err as DriftError).message;
    expect(message).toContain('de-docs: version 1 → 2 on the service');
    expect(message).toContain(
      '~ rule punctuation.quotation_mark: use_curly_quotation_marks → use_straight_quotation_marks',
    );
    expect(modifyingRequests(svc, mark)).toEqual([]);
    expect(p.state.getStyle('de-docs')!.version).toBe(1);
  });

  it('the same change made on the service and in the YAML is no drift, but outputs are stale', async () => {
    const p = await project(DE);
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    await other.patchStyleRules(id, { configured_rules: { numbers: { thousands_separator: 'do_not_use' } } });
    await p.write(
      DE.replace(
        '    custom_instructions:',
        '      numbers:\n        thousands_separator: do_not_use\n    custom_instructions:',
      ),
    );
    const mark = svc.requests().length;
    const plan = await p.reconcile(true);
    expect(plan.drift).toEqual([]);
    expect(plan.actions).toEqual([]);
    expect(plan.changedKeys).toEqual(['de-docs']);
    expect(modifyingRequests(svc, mark)).toEqual([]);
    expect(p.state.getStyle('de-docs')!.version).toBe((await other.getStyleRules(id)).version);
  });

  it('policy overwrite makes the service match the YAML again', async () => {
    const p = await project(withPolicy('overwrite'));
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    await other.addCustomInstruction(id, { label: 'Web UI', prompt: 'Added elsewhere' });
    const plan = await p.reconcile(true);
    expect(plan.drift[0]).toMatchObject({ policy: 'overwrite' });
    expect(plan.actions[0]!.notes.join()).toContain('overwriting changes made on the service');
    const remote = await other.getStyleRules(id);
    expect(remote.custom_instructions.map((i) => i.label)).toEqual(['Product', 'Tone']);
    expect(p.state.getStyle('de-docs')!.version).toBe(remote.version);
    // And it is settled: the next apply changes nothing.
    const mark = svc.requests().length;
    expect((await p.reconcile(true)).actions).toEqual([]);
    expect(modifyingRequests(svc, mark)).toEqual([]);
  });

  it('policy adopt writes the service state into the YAML file, keeping its comments', async () => {
    const list = `# French list, owned by the docs team
name: French docs
language: fr
drift: adopt # the web UI is the source of truth
configured_rules:
  punctuation:
    quotation_mark: use_curly_quotation_marks # guillemets later
custom_instructions:
  - label: Product # keep this
    prompt: Do not translate "locsync"
`;
    const p = await project('  fr-docs: { file: styles/fr.yaml }\n', { 'styles/fr.yaml': list });
    const id = (await p.reconcile(true)).styleIds['fr-docs']!;
    await other.patchStyleRules(id, {
      name: 'French documentation',
      configured_rules: { numbers: { thousands_separator: 'do_not_use' } },
    });
    await other.addCustomInstruction(id, { label: 'Tone', prompt: 'Use vous' });
    const remote = await other.getStyleRules(id);

    const mark = svc.requests().length;
    const plan = await p.reconcile(true);
    expect(plan.actions[0]).toMatchObject({ kind: 'adopt', key: 'fr-docs' });
    expect(plan.changedKeys).toEqual(['fr-docs']);
    expect(modifyingRequests(svc, mark)).toEqual([]);

    const text = await readFile(path.join(p.dir, 'styles/fr.yaml'), 'utf8');
    for (const comment of [
      '# French list, owned by the docs team',
      '# the web UI is the source of truth',
      '# guillemets later',
      '# keep this',
    ]) {
      expect(text).toContain(comment);
    }
    const reloaded = (await p.load()).styleLists['fr-docs']!;
    expect(reloaded.name).toBe('French documentation');
    expect(reloaded.configured_rules).toEqual(remote.configured_rules);
    expect(reloaded.custom_instructions.map((i) => i.label)).toEqual(['Product', 'Tone']);
    expect(p.state.getStyle('fr-docs')!.version).toBe(remote.version);

    const again = svc.requests().length;
    expect((await p.reconcile(true)).actions).toEqual([]);
    expect(modifyingRequests(svc, again)).toEqual([]);
  });

  it('adopt works for a list written inline in the manifest', async () => {
    const p = await project(withPolicy('adopt'));
    const id = (await p.reconcile(true)).styleIds['de-docs']!;
    await other.putConfiguredRules(id, { numbers: { decimal_separator: 'use_comma' } });
    await p.reconcile(true);
    const text = await readFile(p.manifestPath, 'utf8');
    expect(text).toContain('decimal_separator: use_comma');
    expect(text).not.toContain('time_format');
    expect(text).toContain('mappings:');
    expect((await p.load()).styleLists['de-docs']!.configured_rules).toEqual({
      numbers: { decimal_separator: 'use_comma' },
    });
  });
});
