import { afterEach, describe, expect, it } from 'vitest';
import { charactersSent } from '../segments/helpers.js';
import { createFixture, folderMapping, runCliOn, type Fixture } from './fixture.js';

// Per-team cost: each mapping names its cost centre (billing.cost_centre), `report --by cost-centre`
// adds up what the ledger's charges and text requests of its mappings billed, and `--format csv`
// gives every grouping to a spreadsheet with the cost in the manifest's currency. The oracles are
// the local service's own count (GET /v2/usage) and its request log (the text requests' characters).

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const mapping = (name: string, extra: Record<string, unknown> = {}) => folderMapping(name, ['de'], extra);

interface ReportJson {
  by: string;
  rows: Array<{ key: string; billed_characters: number; documents: number }>;
  total: { billed_characters: number };
  cost?: Record<string, number>;
}

/** A CSV report as objects keyed by its header (no cell of these reports holds a comma). */
function csvRows(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trim().split('\n');
  const names = head!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((c, i) => [names[i]!, c])));
}

describe('report --by cost-centre and --format csv', () => {
  it('adds up each cost centre from the ledger, agrees with the service, and exports every grouping', async () => {
    fx = await createFixture({
      manifest: {
        billing: { price_per_million: 20, currency: 'EUR' },
        mappings: [
          mapping('manuals', { billing: { cost_centre: 'support' } }),
          mapping('site', { method: 'segments', billing: { cost_centre: 'marketing' } }),
          mapping('faq', { billing: { cost_centre: 'support' } }),
          mapping('misc'),
        ],
      },
      files: {
        'manuals/install.txt': 'Install the pump on a level floor.\nTighten every bolt by hand first.\n',
        'site/home.txt': 'Welcome to our shop.\nFree shipping on every order this month.\n',
        'faq/returns.txt': 'Returns are free within thirty days.\n',
        'misc/notes.txt': 'Internal notes for the next release.\n',
      },
    });
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    const usage = await fx.client().getUsage();
    const textCharacters = charactersSent(fx);
    expect(textCharacters).toBeGreaterThan(0);

    const json = async (by: string): Promise<ReportJson> => {
      const r = await runCliOn(fx!, 'report', '--by', by, '--json');
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as ReportJson;
    };
    const byCentre = await json('cost-centre');
    const byMapping = await json('mapping');
    const billed = (r: ReportJson) =>
      Object.fromEntries(r.rows.map((row) => [row.key, row.billed_characters]));
    const m = billed(byMapping);
    expect(billed(byCentre)).toEqual({
      '(no cost centre)': m.misc,
      marketing: textCharacters,
      support: m.manuals! + m.faq!,
    });
    // Every character the service counted is in one cost centre.
    expect(byCentre.total.billed_characters).toBe(usage.character_count);
    expect(byCentre.rows.find((r) => r.key === 'support')?.documents).toBe(2);

    const table = await runCliOn(fx, 'report', '--by', 'cost-centre');
    expect(table.stdout).toMatch(/^cost-centre\s+documents/m);
    expect(table.stdout).toMatch(/^marketing\s+1\s+/m);

    for (const by of ['language', 'mapping', 'month', 'cost-centre']) {
      const r = await runCliOn(fx, 'report', '--by', by, '--format', 'csv');
      expect(r.code, r.stderr).toBe(0);
      const rows = csvRows(r.stdout);
      const asJson = await json(by);
      expect(rows.map((row) => row[by])).toEqual([...asJson.rows.map((row) => row.key), 'total']);
      expect(rows.map((row) => Number(row.billed_characters))).toEqual([
        ...asJson.rows.map((row) => row.billed_characters),
        asJson.total.billed_characters,
      ]);
      // The money to the cent, as the JSON report prices it (20 EUR a million characters).
      expect(rows.map((row) => row.cost_EUR)).toEqual(
        [...asJson.rows.map((row) => row.key), 'total'].map((k) => (asJson.cost?.[k] ?? NaN).toFixed(2)),
      );
    }
  }, 180_000);
});
