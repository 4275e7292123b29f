import type { UsageResponse } from '../api/types.js';
import { formatCount } from '../util/format.js';

// `report --reconcile`: what the service counted in its billing period (GET /v2/usage) against
// what locsync's ledger (src/state/billed.ts) holds for the same period, and the difference
// explained by what the ledger knows.

export interface Reconciliation {
  /** The billing period: the service's own, or the calendar month (UTC) when it names none. */
  period: { start: string; end: string | null; from: 'service' | 'calendar month' };
  service_characters: number;
  ledger_characters: number;
  /** Of ledger_characters, what the service may have billed (answers lost, hidden by a crash). */
  possibly_billed_characters: number;
  /** service_characters − ledger_characters. */
  difference: number;
  threshold: number;
  within_threshold: boolean;
  /** What may explain the difference, in words. */
  explanation: string[];
}

/** The billing period of a /v2/usage answer, else the calendar month (UTC) of `now`. */
export function billingPeriod(usage: UsageResponse, now: Date): Reconciliation['period'] {
  if (usage.start_time && !Number.isNaN(Date.parse(usage.start_time)))
    return {
      start: new Date(usage.start_time).toISOString(),
      end: usage.end_time ? new Date(usage.end_time).toISOString() : null,
      from: 'service',
    };
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { start: start.toISOString(), end: null, from: 'calendar month' };
}

export function reconcile(args: {
  usage: UsageResponse;
  period: Reconciliation['period'];
  ledger: { characters: number; possibly: number };
  threshold: number;
}): Reconciliation {
  const service = Number(args.usage.character_count ?? 0);
  const { characters: ledger, possibly } = args.ledger;
  const difference = service - ledger;
  const n = (x: number) => formatCount(Math.abs(x));
  const explanation: string[] = [];
  if (args.period.from === 'calendar month')
    explanation.push('The service names no billing period: the calendar month (UTC) is compared.');
  if (difference === 0) explanation.push("The service's count and locsync's ledger agree.");
  else if (difference > 0)
    explanation.push(
      `The service counted ${n(difference)} characters that locsync's ledger does not know of: another tool or person using the same API key, another locsync with a state of its own on it, or runs recorded in a state other than this one.`,
    );
  else {
    explanation.push(
      `locsync's ledger counts ${n(difference)} characters more than the service: work recorded in this period that the service billed in another (a document uploaded before the period began), or a count the service reset.`,
    );
    if (possibly > 0)
      explanation.push(
        `The ledger counts ${formatCount(possibly)} characters as possibly billed (uploads whose answer was lost or hidden by a crash); those the service did not bill account for up to ${formatCount(Math.min(possibly, -difference))} of the gap.`,
      );
  }
  if (difference > 0 && possibly > 0)
    explanation.push(
      `${formatCount(possibly)} of the ledger's characters are possibly billed twice (\`locsync report\` lists them): counted already, they do not explain this gap.`,
    );
  return {
    period: args.period,
    service_characters: service,
    ledger_characters: ledger,
    possibly_billed_characters: possibly,
    difference,
    threshold: args.threshold,
    within_threshold: Math.abs(difference) <= args.threshold,
    explanation,
  };
}

/** The lines of the table report. */
export function formatReconciliation(r: Reconciliation): string[] {
  const period = `${r.period.start.slice(0, 10)} to ${r.period.end ? r.period.end.slice(0, 10) : 'now'}`;
  return [
    `Reconciled with the service's usage (${period}, ${r.period.from === 'service' ? "the service's billing period" : 'the calendar month'}):`,
    `  the service counted   ${formatCount(r.service_characters)} characters`,
    `  locsync's ledger      ${formatCount(r.ledger_characters)} characters (${formatCount(r.possibly_billed_characters)} of them possibly billed)`,
    `  difference            ${r.difference > 0 ? '+' : ''}${formatCount(r.difference)} characters (${r.within_threshold ? 'within' : 'above'} the threshold of ${formatCount(r.threshold)})`,
    ...r.explanation.map((l) => `  ${l}`),
  ];
}
