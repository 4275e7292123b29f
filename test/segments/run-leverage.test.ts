import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, openBrowser } from '../helpers/browser.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';
import { charactersSent, segmentsMapping } from './helpers.js';
import { importInto } from './memory-helpers.js';

// The leverage of a run (issue 46): the plan's columns (new, repeated in the run, from memory reviewed
// or imported, from memory machine, what remains to pay) in the run's summary and in `report`, made
// from what the run did (the ledger: its text requests and each job's count), so that a run that
// goes as planned says what its plan said. The oracle for what was paid is the local service's
// request log.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

interface Count {
  segments: number;
  characters: number;
}
interface Leverage {
  new: Count;
  repeated: Count;
  memory_reviewed: Count;
  memory_machine: Count;
  remaining: { characters: number; cost?: number };
}
interface ByTarget {
  total: Leverage;
  by_target: Record<string, Leverage>;
}

const TMX =
  '<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body>\n' +
  '<tu><tuv xml:lang="en"><seg>Imported line.</seg></tuv><tuv xml:lang="de-DE"><seg>Importierte Zeile.</seg></tuv>' +
  '<tuv xml:lang="fr-FR"><seg>Ligne importée.</seg></tuv></tu>\n</body></tmx>\n';

/** A second state of the pipeline: one file translated, a memory imported, new files that share lines. */
async function pipelineWithMemory(): Promise<Fixture> {
  const f = await createFixture({
    manifest: {
      mappings: [
        {
          ...segmentsMapping(),
          targets: [{ lang: 'de' }, { lang: 'fr' }],
          billing: { cost_centre: 'support' },
        },
      ],
      billing: { price_per_million: 20, currency: 'EUR' },
    },
    files: { 'a.md': 'Alpha one.\n' },
  });
  await f.sync();
  f.write('src/b.md', 'Alpha one.\n\nImported line.\n\nFresh line.\n\nFresh line.\n');
  f.write('src/c.md', 'Fresh line.\n\nAnother fresh line here.\n');
  f.write('m.tmx', TMX);
  await importInto(f, path.join(f.dir, 'm.tmx'));
  return f;
}

const NONE = { segments: 0, characters: 0 };
const EDITED = 'Alpha eins, von Hand.';

/**
 * A pipeline whose output a person edited (its first paragraph) and whose source then changed (its
 * second), with the service's wording forgotten: only the edit holds the first paragraph.
 */
async function editedWithoutMachineMemory(): Promise<Fixture> {
  const f = await createFixture({
    manifest: { mappings: [segmentsMapping()] },
    files: { 'a.md': 'Alpha one.\n\nBeta two.\n' },
  });
  await f.sync();
  const forgot = await runCliOn(f, 'memory', 'forget', '--origin', 'service');
  expect(forgot.code, forgot.stderr).toBe(0);
  const [, ...rest] = f.read('out/de/a.md').split('\n\n');
  f.write('out/de/a.md', [EDITED, ...rest].join('\n\n'));
  f.write('src/a.md', 'Alpha one.\n\nBeta two changed.\n');
  return f;
}

describe('the leverage of a run, in its summary and in report', () => {
  it('agrees with the plan when the run goes as planned, from the ledger, with what the service was sent', async () => {
    fx = await pipelineWithMemory();
    const planned = await runCliOn(fx, 'plan', '--json');
    expect(planned.code, planned.stderr).toBe(0);
    const plan = (JSON.parse(planned.stdout) as { price: { leverage: ByTarget } }).price.leverage;
    const de: Leverage = {
      new: { segments: 2, characters: 35 },
      repeated: { segments: 2, characters: 22 },
      memory_reviewed: { segments: 1, characters: 14 },
      memory_machine: { segments: 1, characters: 10 },
      remaining: { characters: 35, cost: 0.0007 },
    };
    expect(plan.by_target).toEqual({ de, fr: de });

    const mark = fx.service.requests().length;
    const synced = await runCliOn(fx, 'sync', '--json', '--no-progress');
    expect(synced.code, synced.stderr).toBe(0);
    const summary = JSON.parse(synced.stdout) as { leverage: ByTarget; billedCharacters: number };
    expect(summary.leverage).toEqual(plan);
    // What remained to pay is what the service was sent, and all the run billed.
    expect(summary.leverage.total.remaining.characters).toBe(charactersSent(fx, mark));
    expect(summary.leverage.total.remaining.characters).toBe(summary.billedCharacters);

    // A run with nothing to translate has no leverage; the next edit's run counts its own.
    const again = await fx.sync();
    expect(again.leverage).toBeUndefined();
    fx.write('src/c.md', 'Fresh line.\n\nAnother fresh line here.\n\nOne more.\n');
    const third = await fx.sync();
    expect(third.leverage?.by_target.de).toEqual({
      new: { segments: 1, characters: 9 },
      repeated: { segments: 0, characters: 0 },
      memory_reviewed: { segments: 0, characters: 0 },
      memory_machine: { segments: 2, characters: 35 },
      remaining: { characters: 9 },
    });
  });

  it("counts a person's edit of an output as reviewed, in the plan and in the run, and buys it not", async () => {
    fx = await editedWithoutMachineMemory();
    const planned = await runCliOn(fx, 'plan', '--json');
    expect(planned.code, planned.stderr).toBe(0);
    const plan = (JSON.parse(planned.stdout) as { price: { leverage: ByTarget } }).price.leverage;
    expect(plan.by_target.de).toEqual({
      new: { segments: 1, characters: 17 },
      repeated: NONE,
      memory_reviewed: { segments: 1, characters: 10 },
      memory_machine: NONE,
      remaining: { characters: 17 },
    });

    const mark = fx.service.requests().length;
    const synced = await runCliOn(fx, 'sync', '--json', '--no-progress');
    expect(synced.code, synced.stderr).toBe(0);
    expect((JSON.parse(synced.stdout) as { leverage: ByTarget }).leverage).toEqual(plan);
    expect(charactersSent(fx, mark)).toBe(17);
    expect(fx.read('out/de/a.md').split('\n\n')[0]).toBe(EDITED);
  });

  it('prices an edit --overwrite-edits replaces as the run buys it, in the dry run and the budget', async () => {
    fx = await editedWithoutMachineMemory();
    const dry = await runCliOn(fx, 'sync', '--overwrite-edits', '--yes', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    const plan = (JSON.parse(dry.stdout) as { price: { leverage: ByTarget } }).price.leverage;
    expect(plan.by_target.de).toEqual({
      new: { segments: 2, characters: 27 },
      repeated: NONE,
      memory_reviewed: NONE,
      memory_machine: NONE,
      remaining: { characters: 27 },
    });
    // The run's check prices it as the dry run does: refused before it starts, 27 over a cap of 20.
    const capped = await runCliOn(
      fx,
      'sync',
      '--overwrite-edits',
      '--yes',
      '--max-billed',
      '20',
      '--no-progress',
    );
    expect(capped.code, capped.stderr).toBe(5);
    expect(capped.stderr).toContain('the plan bills 27 characters');
    expect(capped.stderr).toContain('nothing was sent');
    expect(fx.read('out/de/a.md').split('\n\n')[0]).toBe(EDITED);

    const synced = await runCliOn(fx, 'sync', '--overwrite-edits', '--yes', '--json', '--no-progress');
    expect(synced.code, synced.stderr).toBe(0);
    expect((JSON.parse(synced.stdout) as { leverage: ByTarget }).leverage).toEqual(plan);
    expect(fx.read('out/de/a.md').split('\n\n')[0]).not.toBe(EDITED);
  });

  it('prints the columns in the summary', async () => {
    fx = await pipelineWithMemory();
    const synced = await runCliOn(fx, 'sync', '--no-progress');
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain(
      'Segments (method: segments), as a translation memory analysis counts them:',
    );
    expect(synced.stdout).toContain(
      'de: 2 new (35 characters) · 2 repeated in this run (22 characters) · 1 from memory, reviewed or imported (14 characters) · 1 from memory, machine (10 characters); billed 35 characters (< €0.01)',
    );
    expect(synced.stdout).toContain(
      'all: 4 new (70 characters) · 4 repeated in this run (44 characters) · 2 from memory, reviewed or imported (28 characters) · 2 from memory, machine (20 characters); billed 70 characters (< €0.01)',
    );
  });

  it('gives report the same columns, per language and month, in text, CSV, JSON and the HTML page', async () => {
    fx = await pipelineWithMemory();
    const synced = await runCliOn(fx, 'sync', '--json', '--no-progress');
    expect(synced.code, synced.stderr).toBe(0);
    const summary = JSON.parse(synced.stdout) as { leverage: ByTarget };
    // The first run (a.md) was one new segment per language.
    const first: Leverage = {
      new: { segments: 1, characters: 10 },
      repeated: { segments: 0, characters: 0 },
      memory_reviewed: { segments: 0, characters: 0 },
      memory_machine: { segments: 0, characters: 0 },
      remaining: { characters: 10, cost: 0.0002 },
    };
    const plus = (a: Leverage, b: Leverage): Leverage => ({
      new: { segments: a.new.segments + b.new.segments, characters: a.new.characters + b.new.characters },
      repeated: a.repeated,
      memory_reviewed: a.memory_reviewed,
      memory_machine: a.memory_machine,
      remaining: {
        characters: a.remaining.characters + b.remaining.characters,
        cost: (a.remaining.cost ?? 0) + (b.remaining.cost ?? 0),
      },
    });
    const de = plus(summary.leverage.by_target.de!, first);

    const json = await runCliOn(fx, 'report', '--by', 'language', '--json');
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      rows: Array<{ key: string; leverage: Leverage; billed_characters: number }>;
      total: { leverage: Leverage; billed_characters: number };
    };
    const rowOf = (key: string) => report.rows.find((r) => r.key === key)!;
    expect(rowOf('de').leverage.new).toEqual(de.new);
    expect(rowOf('de').leverage.repeated).toEqual(de.repeated);
    expect(rowOf('de').leverage.memory_reviewed).toEqual({ segments: 1, characters: 14 });
    expect(rowOf('de').leverage.memory_machine).toEqual({ segments: 1, characters: 10 });
    expect(rowOf('de').leverage.remaining.characters).toBe(45);
    expect(rowOf('de').leverage.remaining.cost).toBeCloseTo(0.0009, 10);
    expect(rowOf('fr').leverage).toEqual(rowOf('de').leverage);
    // Every segment-path character billed is a remaining one: here all that was billed.
    expect(report.total.leverage.remaining.characters).toBe(report.total.billed_characters);
    expect(report.total.leverage.remaining.characters).toBe(charactersSent(fx));

    const byMonth = JSON.parse((await runCliOn(fx, 'report', '--by', 'month', '--json')).stdout) as {
      rows: Array<{ leverage: Leverage }>;
    };
    expect(byMonth.rows).toHaveLength(1);
    expect(byMonth.rows[0]!.leverage.repeated).toEqual({ segments: 4, characters: 44 });
    // Every grouping has the columns: one mapping of one cost centre, so its one row is the total.
    expect(byMonth.rows[0]!.leverage).toEqual(report.total.leverage);
    for (const [by, key] of [
      ['mapping', 'docs'],
      ['cost-centre', 'support'],
    ] as const) {
      const grouped = JSON.parse((await runCliOn(fx, 'report', '--by', by, '--json')).stdout) as {
        rows: Array<{ key: string; leverage: Leverage }>;
      };
      expect(grouped.rows.map((r) => [r.key, r.leverage])).toEqual([[key, report.total.leverage]]);
    }

    const text = await runCliOn(fx, 'report', '--by', 'language');
    expect(text.stdout).toContain(
      'de: 3 new (45 characters) · 2 repeated within a run (22 characters) · 1 from memory, reviewed or imported (14 characters) · 1 from memory, machine (10 characters); billed 45 characters (< €0.01)',
    );
    expect(text.stdout).toContain('total: 6 new (90 characters)');

    const csv = (await runCliOn(fx, 'report', '--by', 'language', '--format', 'csv')).stdout
      .trim()
      .split('\n');
    const head = csv[0]!.split(',');
    const deCells = Object.fromEntries(
      csv
        .find((l) => l.startsWith('de,'))!
        .split(',')
        .map((c, i) => [head[i], c]),
    );
    expect(deCells).toMatchObject({
      new_segments: '3',
      new_characters: '45',
      repeated_segments: '2',
      repeated_characters: '22',
      memory_reviewed_segments: '1',
      memory_reviewed_characters: '14',
      memory_machine_segments: '1',
      memory_machine_characters: '10',
      remaining_characters: '45',
      remaining_cost_EUR: '0.00',
    });

    const page = path.join(fx.dir, 'report.html');
    const html = await runCliOn(fx, 'report', '--format', 'html', '-o', page);
    expect(html.code, html.stderr).toBe(0);
    if (!HAS_CHROMIUM) return;
    const b = await openBrowser();
    try {
      await b.page.goto(pathToFileURL(page).href);
      // Each row of the page's table as its heading cell and the figures shown.
      const table = await b.page.$$eval('#leverage-table tr', (trs) =>
        trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim())),
      );
      const cells = (key: string) => table.find((r) => r[0] === key)?.slice(1);
      expect(cells('de')).toEqual(['3 (45 chars)', '2 (22 chars)', '1 (14 chars)', '1 (10 chars)', '45']);
      expect(cells('total')?.[0]).toBe('6 (90 chars)');
      expect(b.errors).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
