import { formatBill, formatCharacters, type BillingRate } from '../billing/money.js';

/** What a calendar month billed so far, as `status` shows it (and `status --json` carries it). */
export interface Spending {
  /** YYYY-MM (UTC). */
  month: string;
  billed_characters: number;
  budget_per_month?: number;
  billing?: BillingRate;
}

/** "This month (2026-11): 752,029 characters (€18.80) billed, 38% of budget.per_month (2,000,000)". */
export function formatSpending(s: Spending): string {
  const line = `This month (${s.month}): ${formatBill(s.billed_characters, s.billing)} billed`;
  if (s.budget_per_month === undefined) return `${line} (no monthly budget set)`;
  const share = s.budget_per_month > 0 ? Math.floor((s.billed_characters / s.budget_per_month) * 100) : 100;
  return `${line}, ${share}% of budget.per_month (${formatCharacters(s.budget_per_month)})`;
}
