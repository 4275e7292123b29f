import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { editManifest, segmentsMapping } from '../segments/helpers.js';
import { createFixture, onPostgres, runCliOn, type Fixture } from './fixture.js';

// `state adopt` records the outputs it adopts as outputs locsync did not write (docs/review.md): a
// person's until a translation replaces them. So a person's edit made before the state was lost is
// never overwritten by the next source change: the document path writes the new translation beside
// it, the segment path keeps each segment's wording (a changed segment's: a conflict). On SQLite and
// on PostgreSQL (a new database).

let fx: Fixture | undefined;
let fresh: TestDatabase | undefined;
afterEach(async () => {
  await fx?.close();
  await fresh?.drop();
  fx = undefined;
  fresh = undefined;
});

const CORRECTED = 'Von einer Person korrigiert.';

/** The state is lost (a new database, or the state folder gone) and the outputs adopted. */
async function lostAndAdopted(f: Fixture): Promise<string> {
  if (onPostgres) {
    const server = await pgForTests();
    fresh = await createTestDatabase(server!);
    const url = fresh.url;
    editManifest(f, (m) => (m.state = url));
  } else fs.rmSync(path.join(f.dir, '.locsync'), { recursive: true, force: true });
  const adopted = await runCliOn(f, 'state', 'adopt');
  expect(adopted.code, adopted.stderr).toBe(0);
  return adopted.stdout;
}

describe('state adopt: adopted outputs are people’s work', () => {
  it('document path: a source change after adopt writes the new translation beside the edit', async () => {
    fx = await createFixture({
      files: { 'guide.txt': 'Hello world.\n' },
      manifest: { mappings: [{ ...segmentsMapping(), method: 'document' }] },
    });
    expect((await fx.sync()).failed).toEqual([]);
    fx.write('out/de/guide.txt', `${CORRECTED}\n`);
    const said = await lostAndAdopted(fx);
    expect(said).toContain('Adopted 1 outputs');
    expect(said).toContain("taken as people's work");

    fx.write('src/guide.txt', 'Hello world, again.\n');
    const plan = JSON.parse((await runCliOn(fx, 'plan', '--json')).stdout);
    expect(plan.edited).toEqual([
      expect.objectContaining({ output: 'out/de/guide.txt', new_translation_planned: true }),
    ]);
    expect((await fx.sync()).failed).toEqual([]);
    expect(fx.read('out/de/guide.txt')).toBe(`${CORRECTED}\n`);
    expect(fx.read('out/de/guide.locsync-new.txt')).not.toContain(CORRECTED);
    expect((await runCliOn(fx, 'status')).code).toBe(1);
  });

  it('an adopted output is recorded as its translation was: the same row, and the next plan is a no-op', async () => {
    fx = await createFixture({
      files: { 'guide.txt': 'Hello world.\n', 'notes/faq.txt': 'A question?\n' },
      manifest: {
        mappings: [
          {
            ...segmentsMapping(),
            method: 'document',
            targets: [{ lang: 'de', formality: 'more' }, { lang: 'fr' }],
          },
        ],
      },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const translated = await doneRows(fx);
    expect(translated).toHaveLength(4);
    await lostAndAdopted(fx);
    expect(await doneRows(fx)).toEqual(translated);
    const mark = fx.mark();
    const again = await fx.sync();
    expect(again.failed).toEqual([]);
    expect(again.uploads).toBe(0);
    expect(fx.uploads(mark)).toEqual([]);
  });

  it('segment path: each segment’s wording is kept as reviewed, one whose source changed is a conflict', async () => {
    const source = (a: string, b: string) => `${a}\n${b}\n`;
    fx = await createFixture({
      files: { 'guide.txt': source('First paragraph.', 'Second paragraph.') },
      manifest: { mappings: [segmentsMapping()] },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const machine = fx.read('out/de/guide.txt').split('\n');
    fx.write('out/de/guide.txt', `${machine[0]}\n${CORRECTED}\n`);
    await lostAndAdopted(fx);

    // The edited paragraph's source changes: its wording stays, the machine's goes beside it, a
    // conflict; the other paragraph's adopted wording stays too (reviewed: its source is the same).
    fx.write('src/guide.txt', source('First paragraph.', 'Second paragraph, rewritten.'));
    expect((await fx.sync()).failed).toEqual([]);
    expect(fx.read('out/de/guide.txt').split('\n')).toEqual([machine[0], CORRECTED, '']);
    const beside = fx.read('out/de/guide.locsync-new.txt').split('\n');
    expect(beside[0]).toBe(machine[0]);
    expect(beside[1]).not.toBe(CORRECTED);
    const status = await runCliOn(fx, 'status', '--json');
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout).edited).toEqual([
      expect.objectContaining({
        output: 'out/de/guide.txt',
        segment_conflicts: [expect.objectContaining({ where: 'line 2', reviewed: CORRECTED })],
      }),
    ]);
  });
});

/** What a done job row says of its output, source and settings: each output's, in output order. */
async function doneRows(f: Fixture): Promise<Array<Record<string, unknown>>> {
  const st = await f.open();
  try {
    const rows = [
      ...(await st.state.jobs.doneOfSource('docs', 'guide.txt')),
      ...(await st.state.jobs.doneOfSource('docs', 'notes/faq.txt')),
    ];
    return rows
      .map((j) => ({
        output_path: j.output_path,
        mapping: j.mapping,
        rel_path: j.rel_path,
        sha256: j.sha256,
        target_lang: j.target_lang,
        fingerprint: j.fingerprint,
        base_fingerprint: j.base_fingerprint,
        request: j.request,
      }))
      .sort((a, b) => a.output_path.localeCompare(b.output_path));
  } finally {
    await st.close();
  }
}
