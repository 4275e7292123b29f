import { priceLeverage, type Leverage, type LeverageCount } from '../billing/leverage.js';
import { LEVERAGE_HEADING, leverageLine } from '../billing/leverage-lines.js';
import type { BillingRate } from '../billing/money.js';
import type { BillingRow } from './queries.js';

// The report's leverage columns (src/billing/leverage.ts, the plan's): as lines under the text
// table, as CSV columns, in money in the JSON. Rows without segment-path work say nothing in text.

export const LEVERAGE_KINDS = [
  { kind: 'new', title: 'new' },
  { kind: 'repeated', title: 'repeated within a run' },
  { kind: 'memory_reviewed', title: 'from memory, reviewed or imported' },
  { kind: 'memory_machine', title: 'from memory, machine' },
] as const;
const KINDS = LEVERAGE_KINDS.map((k) => k.kind);

/** Whether a row (or the total) had segment-path work. */
export const anySegments = (l: Leverage | undefined): l is Leverage =>
  !!l && KINDS.some((k) => (l[k] as LeverageCount).segments > 0);

/** "Segments (method: segments) …" and a line per row with segment-path work, then the total. */
export function leverageReportLines(
  rows: readonly BillingRow[],
  total: BillingRow,
  rate?: BillingRate,
): string[] {
  if (!anySegments(total.leverage)) return [];
  const lines = rows.flatMap((r) =>
    anySegments(r.leverage) ? [leverageLine(r.key, r.leverage, 'report', rate)] : [],
  );
  return [
    LEVERAGE_HEADING,
    ...lines,
    ...(lines.length > 1 ? [leverageLine('total', total.leverage, 'report', rate)] : []),
  ];
}

/** The CSV columns of a row's leverage, by name. */
export function leverageCsvCells(
  l: Leverage | undefined,
  currency: string | undefined,
): Array<[string, number | string]> {
  const cells: Array<[string, number | string]> = KINDS.flatMap((k) => [
    [`${k}_segments`, l?.[k].segments ?? 0] as [string, number],
    [`${k}_characters`, l?.[k].characters ?? 0] as [string, number],
  ]);
  cells.push(['remaining_characters', l?.remaining.characters ?? 0]);
  if (currency) cells.push([`remaining_cost_${currency}`, (l?.remaining.cost ?? 0).toFixed(2)]);
  return cells;
}

/** Each row's remaining characters in money too (a rate set). */
export function priceRowsLeverage(rows: readonly BillingRow[], rate: BillingRate | undefined): void {
  for (const r of rows) if (r.leverage) priceLeverage(r.leverage, rate);
}
