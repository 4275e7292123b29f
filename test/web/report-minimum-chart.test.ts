import { describe, expect, it } from 'vitest';
import { type BillingRow } from '../../src/report/queries.js';
import { renderReportPage } from '../../src/web/report-page.js';

// The billing report's chart "Billed at the 50,000-character minimum" shows the documents billed at
// the minimum only: what they held and what the minimum added; characters billed by count are the
// month chart's.

const row = (
  over: Partial<BillingRow> & { month: string; language: string },
): BillingRow & {
  month: string;
  language: string;
} => ({
  key: over.language,
  documents: 0,
  billed_characters: 0,
  minimum_documents: 0,
  minimum_billed_characters: 0,
  minimum_added_characters: 0,
  minimum_unknown_documents: 0,
  reused_documents: 0,
  unfinished_characters: 0,
  possibly_billed_characters: 0,
  ...over,
});

/** The bars of the chart titled `title`: "category · series: value". */
function bars(html: string, title: string): string[] {
  const chart = html.split('<svg').find((c) => c.includes(`aria-label="${title}"`)) ?? '';
  return [...chart.matchAll(/<rect class="bar"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]!);
}

describe('the minimum chart of the billing report', () => {
  it('shows what the minimum-billed documents held and what the minimum added, nothing billed by count', () => {
    // November: 300,000 characters of text files by count, and two docx billed 50,000 each that
    // held 1,200 and 800 characters; December: one docx whose real count is not known.
    const byMonthLanguage = [
      row({ month: '2026-11', language: 'de', documents: 40, billed_characters: 300_000 }),
      row({
        month: '2026-11',
        language: 'fr',
        documents: 2,
        billed_characters: 100_000,
        minimum_documents: 2,
        minimum_billed_characters: 100_000,
        minimum_added_characters: 98_000,
      }),
      row({
        month: '2026-12',
        language: 'de',
        documents: 1,
        billed_characters: 50_000,
        minimum_documents: 1,
        minimum_billed_characters: 50_000,
        minimum_added_characters: null,
        minimum_unknown_documents: 1,
      }),
    ];
    const total = row({ month: '', language: 'total', billed_characters: 450_000 });
    const html = renderReportPage({
      generatedAt: '2026-12-02',
      pipeline: 'docs',
      grouped: { by: 'language', rows: [], total } as never,
      byMonthLanguage,
    });
    expect(bars(html, 'Billed at the 50,000-character minimum, by month')).toEqual([
      '2026-11 · their own characters: 2,000 characters',
      '2026-11 · added by the minimum: 98,000 characters',
      '2026-12 · at the minimum, real count unknown: 50,000 characters',
    ]);
  });

  it('says so when no document was billed at the minimum', () => {
    const total = row({ month: '', language: 'total', billed_characters: 1_000 });
    const html = renderReportPage({
      generatedAt: '2026-12-02',
      pipeline: 'docs',
      grouped: { by: 'language', rows: [], total } as never,
      byMonthLanguage: [row({ month: '2026-11', language: 'de', documents: 3, billed_characters: 1_000 })],
    });
    expect(bars(html, 'Billed at the 50,000-character minimum, by month')).toEqual([]);
    expect(html).toContain('No document was billed at the minimum.');
  });
});
