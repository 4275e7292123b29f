import type { Leverage, LeverageByTarget, LeverageCount } from './leverage.js';
import { formatBill, formatCharacters, type BillingRate } from './money.js';

// The leverage columns as people read them (./leverage.ts counts them), worded for where they are
// shown: a plan says what remains to pay; a run's summary and the report say what was billed. A
// report adds up many runs, so a repetition there was sent once within its own run.

/** Where the lines are shown. */
export type LeverageView = 'plan' | 'run' | 'report';

const REPEATED: Record<LeverageView, string> = {
  plan: 'repeated in this run',
  run: 'repeated in this run',
  report: 'repeated within a run',
};

/**
 * "  de: 1 new (11 characters) · 2 repeated in this run (22 characters) · …; remaining 11
 * characters" (a plan), "…; billed 11 characters" (a run, the report).
 */
export function leverageLine(title: string, l: Leverage, view: LeverageView, rate?: BillingRate): string {
  const part = (c: LeverageCount, words: string) =>
    `${c.segments} ${words} (${formatCharacters(c.characters)} characters)`;
  const paid = view === 'plan' ? 'remaining' : 'billed';
  return `  ${title}: ${[
    part(l.new, 'new'),
    part(l.repeated, REPEATED[view]),
    part(l.memory_reviewed, 'from memory, reviewed or imported'),
    part(l.memory_machine, 'from memory, machine'),
  ].join(' · ')}; ${paid} ${formatBill(l.remaining.characters, rate)}`;
}

export const LEVERAGE_HEADING = 'Segments (method: segments), as a translation memory analysis counts them:';

/** A plan's or a run's segments by where their translation comes from: per language, then all. */
export function leverageLines(
  leverage: LeverageByTarget,
  view: 'plan' | 'run',
  rate?: BillingRate,
): string[] {
  const targets = Object.keys(leverage.by_target).sort();
  return [
    LEVERAGE_HEADING,
    ...targets.map((t) => leverageLine(t, leverage.by_target[t] as Leverage, view, rate)),
    ...(targets.length > 1 ? [leverageLine('all', leverage.total, view, rate)] : []),
  ];
}
