import { describe, expect, it } from 'vitest';
import { costOf, formatBill, formatCharacters, formatMoney } from '../../src/billing/money.js';
import { isCurrencyCode } from '../../src/util/currency.js';
import { hasMinimum, priceUpload } from '../../src/billing/price.js';

describe('priceUpload', () => {
  it('bills the characters of a text format as counted', () => {
    expect(priceUpload('notes/readme.txt', 1234)).toEqual({
      characters: 1234,
      minimumAdded: 0,
      billed: 1234,
    });
    expect(priceUpload('page.HTML', 0)).toEqual({ characters: 0, minimumAdded: 0, billed: 0 });
  });

  it('raises docx/pptx/doc/xlsx/pdf to the 50,000 minimum and shows what the minimum added', () => {
    for (const f of ['a.docx', 'b.pptx', 'c.doc', 'd.xlsx', 'e.PDF']) {
      expect(priceUpload(f, 1200)).toEqual({ characters: 1200, minimumAdded: 48_800, billed: 50_000 });
      expect(hasMinimum(f)).toBe(true);
    }
    expect(priceUpload('big.docx', 73_000)).toEqual({ characters: 73_000, minimumAdded: 0, billed: 73_000 });
    expect(priceUpload('exact.pdf', 50_000).minimumAdded).toBe(0);
  });

  it('bills images nothing, whatever was counted', () => {
    expect(priceUpload('logo.png', 99)).toEqual({ characters: 0, minimumAdded: 0, billed: 0 });
    expect(priceUpload('photo.JPEG', null).billed).toBe(0);
  });

  it('prices a document that could not be counted at its format minimum (a lower bound)', () => {
    expect(priceUpload('broken.docx', null)).toEqual({ characters: null, minimumAdded: 0, billed: 50_000 });
    expect(priceUpload('broken.txt', null)).toEqual({ characters: null, minimumAdded: 0, billed: 0 });
  });
});

describe('money', () => {
  const eur = { price_per_million: 25, currency: 'EUR' };

  it('groups characters one way everywhere', () => {
    expect(formatCharacters(752029)).toBe('752,029');
  });

  it('turns characters into money at the rate', () => {
    expect(costOf(1_000_000, eur)).toBe(25);
    expect(costOf(752_029, eur)).toBeCloseTo(18.800725, 6);
    expect(formatBill(752_029, eur)).toBe('752,029 characters (€18.80)');
    expect(formatBill(752_029)).toBe('752,029 characters');
    expect(formatBill(100_000, { price_per_million: 2000, currency: 'JPY' })).toBe(
      '100,000 characters (¥200)',
    );
  });

  it('never shows a small non-zero bill as nothing', () => {
    expect(formatMoney(costOf(100, eur), 'EUR')).toBe('< €0.01');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
  });

  it('knows currency codes', () => {
    expect(isCurrencyCode('EUR')).toBe(true);
    expect(isCurrencyCode('eur')).toBe(false);
    expect(isCurrencyCode('EURO')).toBe(false);
  });
});
