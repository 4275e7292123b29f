import { describe, expect, it } from 'vitest';
import { formatPlanPrice, formatUploadPrice } from '../../src/sync/plan/format-price.js';
import { pricePlan, type PriceableAction } from '../../src/billing/plan-price.js';

const eur = { price_per_million: 25, currency: 'EUR' };

function translate(file: string, target: string, reason: string, sha = `sha-${file}`, mapping = 'docs') {
  return { kind: 'translate', ref: { mapping, file, target }, reason, source: { sha256: sha } };
}

describe('pricePlan', () => {
  const counts: Record<string, number> = { 'a.txt': 1200, 'b.docx': 3000, 'big.pdf': 80_000, 'c.txt': 500 };

  it('prices each upload and totals them per mapping, target and reason; stale apart', async () => {
    const asked: string[] = [];
    const actions: PriceableAction[] = [
      translate('a.txt', 'de', 'new'),
      translate('a.txt', 'fr', 'new'),
      translate('b.docx', 'de', 'changed'),
      translate('logo.png', 'de', 'new'),
      { kind: 'reuse', ref: { mapping: 'docs', file: 'copy.txt', target: 'de' } },
      translate('big.pdf', 'fr', 'settings-changed', 'sha-big', 'manuals'),
      {
        kind: 'stale',
        ref: { mapping: 'docs', file: 'c.txt', target: 'de' },
        reason: 'settings',
        source: { sha256: 'sha-c' },
      },
    ];
    const { prices, price } = await pricePlan(
      actions,
      async (ref) => {
        asked.push(`${ref.file}/${ref.target}`);
        return counts[ref.file];
      },
      eur,
    );
    // One count per content: a.txt is counted once for both targets.
    expect(asked.filter((a) => a.startsWith('a.txt'))).toHaveLength(1);
    expect(prices[4]).toBeUndefined();
    expect(prices[2]).toEqual({ characters: 3000, minimumAdded: 47_000, billed: 50_000 });
    expect(prices[3]?.billed).toBe(0);
    expect(price.total).toMatchObject({
      documents: 5,
      characters: 85_400,
      minimum_added: 47_000,
      billed: 132_400,
    });
    expect(price.total.cost).toBeCloseTo(3.31, 6);
    expect(price.by_target.de?.billed).toBe(51_200);
    expect(price.by_target.fr?.billed).toBe(81_200);
    expect(price.by_mapping.manuals?.billed).toBe(80_000);
    expect(Object.keys(price.by_reason).sort()).toEqual(['changed', 'new', 'settings-changed']);
    expect(price.stale).toMatchObject({ documents: 1, billed: 500 });
    expect(price.stale_by_reason.settings?.documents).toBe(1);
  });

  it('a document that cannot be counted is priced at its minimum and counted apart', async () => {
    const { price } = await pricePlan([translate('broken.docx', 'de', 'new')], async () => undefined);
    expect(price.total).toMatchObject({ documents: 1, billed: 50_000, uncounted: 1 });
    expect(price.total.cost).toBeUndefined();
  });
});

describe('the priced plan in words', () => {
  it('shows the minimum apart and money when a rate is set', () => {
    expect(formatUploadPrice('b.docx', { characters: 3000, minimumAdded: 47_000, billed: 50_000 }, eur)).toBe(
      '50,000 characters (€1.25): 3,000 + 47,000 minimum',
    );
    expect(formatUploadPrice('logo.png', { characters: 0, minimumAdded: 0, billed: 0 })).toBe(
      '0 characters (image)',
    );
  });

  it('totals by target, mapping and reason, and prices the stale outputs apart', async () => {
    const { price } = await pricePlan(
      [
        translate('a.txt', 'de', 'new'),
        translate('b.docx', 'fr', 'changed'),
        {
          kind: 'stale',
          ref: { mapping: 'docs', file: 'a.txt', target: 'fr' },
          reason: 'style',
          source: { sha256: 'x' },
        },
      ],
      async (ref) => (ref.file === 'a.txt' ? 1000 : 2000),
      eur,
    );
    const text = formatPlanPrice(price, eur).join('\n');
    expect(text).toContain(
      'Billed by this plan: 2 uploads, 51,000 characters (€1.28); 48,000 of them added by the 50,000-character minimum',
    );
    expect(text).toContain('by target: de 1,000 characters (€0.03) · fr 50,000 characters (€1.25)');
    expect(text).toContain('by reason: changed 50,000 characters (€1.25) · new 1,000 characters (€0.03)');
    expect(text).toContain(
      '1 stale output would bill 1,000 characters (€0.03) to re-translate (style list or glossary edited: 1',
    );
    expect(text).toContain('`--retranslate style`');
  });
});
