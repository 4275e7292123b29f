import fs from 'node:fs';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/util/errors.js';
import { opsProject, type OpsProject } from './ops-fixture.js';

// A glossary needs source_lang. Naming the language the outputs were made from is no settings
// change (nothing stale, nothing to pay); the glossary then makes stale only the outputs of the
// target that uses it.

interface PlanAction {
  kind: string;
  reason?: string;
  because?: string;
  ref?: { target: string };
}

function editManifest(p: OpsProject, edit: (m: Record<string, unknown>) => void): void {
  const m = parse(fs.readFileSync(p.manifest, 'utf8')) as Record<string, unknown>;
  edit(m);
  fs.writeFileSync(p.manifest, stringify(m));
}

const docs = (m: Record<string, unknown>) =>
  (m.mappings as Array<Record<string, unknown>>)[0] as {
    source_lang?: string;
    targets: Array<Record<string, unknown>>;
  };

async function planActions(p: OpsProject): Promise<PlanAction[]> {
  const r = await p.cli(['plan', '--json']);
  expect(r.code, r.stderr).toBe(EXIT.ok);
  return (JSON.parse(r.stdout) as { plan: { actions: PlanAction[] } }).plan.actions;
}

describe('source_lang and glossaries: stale only where a translation can change', () => {
  let p: OpsProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('naming the source language is no change; a glossary on one target makes only that pair stale', async () => {
    p = await opsProject();
    p.write('a.txt', 'The folder is on the shared drive.\n');
    p.write('b.txt', 'Another folder.\n');
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);

    editManifest(p, (m) => (docs(m).source_lang = 'en'));
    expect(await planActions(p)).toEqual([]);
    const status = await p.cli(['status', '--json']);
    expect(status.code).toBe(EXIT.ok);
    expect((JSON.parse(status.stdout) as { stale: unknown[] }).stale).toEqual([]);

    editManifest(p, (m) => {
      m.glossaries = { terms: { entries: { 'en-de': { folder: 'Ordner' } } } };
      docs(m).targets[0]!.glossary = 'terms';
    });
    const actions = await planActions(p);
    expect(actions.filter((a) => a.kind !== 'stale')).toEqual([]);
    expect(actions.map((a) => a.ref?.target).sort()).toEqual(['de', 'de']);

    // A plain sync pays for nothing; the French outputs stay up to date.
    const sync = await p.cli(['sync']);
    expect(sync.code).toBe(EXIT.ok);
    expect(sync.stdout).toMatch(/Billed: 0 characters for 0 uploads/);
  }, 60_000);

  it('changing an explicit source language is a settings change', async () => {
    p = await opsProject();
    p.write('a.txt', 'Ein Dokument.\n');
    editManifest(p, (m) => (docs(m).source_lang = 'en'));
    expect((await p.cli(['sync'])).code).toBe(EXIT.ok);
    editManifest(p, (m) => (docs(m).source_lang = 'nl'));
    const actions = await planActions(p);
    expect(actions.map((a) => a.kind)).toEqual(['stale', 'stale']);
  }, 60_000);
});
