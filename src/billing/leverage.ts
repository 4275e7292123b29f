import type { LeverageRow } from '../state/leverage-ledger.js';
import type { SegmentOrigin } from '../state/memory-types.js';
import { costOf, type BillingRate } from './money.js';

// The leverage of a plan's segment-path translations, as translation-management tools analyse a
// job: of its segments (and their characters), which are new, which repeat a segment sent earlier
// in the same run (paid once), which the memory holds from a person or a memory brought in
// (reviewed or imported: docs/memory.md) and which from the service (machine), and what the
// remaining characters cost. Per target language and in total. A run's (the summary's, the
// report's) is what it did, from the ledger (src/state/leverage-ledger.ts): the same columns, its
// remaining characters what its text requests billed.

export interface LeverageCount {
  segments: number;
  characters: number;
}

export interface Leverage {
  new: LeverageCount;
  /** Repetitions within this run: sent once, with the first. */
  repeated: LeverageCount;
  /** From the memory, a person's or a memory brought in (origin reviewed or imported). */
  memory_reviewed: LeverageCount;
  /** From the memory, the service's (origin service). */
  memory_machine: LeverageCount;
  /** What is billed: the new segments' characters (and their cost with a billing rate). */
  remaining: { characters: number; cost?: number };
}

/** A plan's or a run's leverage: in total and per target language. */
export interface LeverageByTarget {
  total: Leverage;
  by_target: Record<string, Leverage>;
}

export type LeverageKind = 'new' | 'repeated' | 'memory_reviewed' | 'memory_machine';

/** Which column a segment the memory holds goes in: a person's or a memory brought in, or the service's. */
export function memoryLeverage(origin: SegmentOrigin): 'memory_reviewed' | 'memory_machine' {
  return origin === 'service' ? 'memory_machine' : 'memory_reviewed';
}

const count = (): LeverageCount => ({ segments: 0, characters: 0 });

export function emptyLeverage(): Leverage {
  return {
    new: count(),
    repeated: count(),
    memory_reviewed: count(),
    memory_machine: count(),
    remaining: { characters: 0 },
  };
}

export function countSegment(l: Leverage, kind: LeverageKind, characters: number): void {
  l[kind].segments++;
  l[kind].characters += characters;
  if (kind === 'new') l.remaining.characters += characters;
}

export function addLeverage(into: Leverage, l: Leverage): void {
  for (const k of ['new', 'repeated', 'memory_reviewed', 'memory_machine'] as const) {
    into[k].segments += l[k].segments;
    into[k].characters += l[k].characters;
  }
  into.remaining.characters += l.remaining.characters;
}

export function priceLeverage(l: Leverage, rate: BillingRate | undefined): void {
  if (rate) l.remaining.cost = costOf(l.remaining.characters, rate);
}

/** One row of the ledger (a job's counts or a text request) added in. */
export function addLeverageRow(l: Leverage, r: LeverageRow): void {
  l.new.segments += r.new_segments;
  l.new.characters += r.new_characters;
  l.repeated.segments += r.repeated_segments;
  l.repeated.characters += r.repeated_characters;
  l.memory_reviewed.segments += r.reviewed_segments;
  l.memory_reviewed.characters += r.reviewed_characters;
  l.memory_machine.segments += r.machine_segments;
  l.memory_machine.characters += r.machine_characters;
  l.remaining.characters += r.billed_characters;
}

/** A run's leverage from its rows of the ledger; undefined when it translated nothing segment by segment. */
export function leverageOfRows(rows: readonly LeverageRow[]): LeverageByTarget | undefined {
  if (rows.length === 0) return undefined;
  const out: LeverageByTarget = { total: emptyLeverage(), by_target: {} };
  for (const r of rows) {
    addLeverageRow(out.total, r);
    addLeverageRow((out.by_target[r.target_lang] ??= emptyLeverage()), r);
  }
  return out;
}

/** A copy with the remaining characters in money (a rate set), as `--json` prints it. */
export function pricedLeverage(l: LeverageByTarget, rate: BillingRate | undefined): LeverageByTarget {
  const copy = structuredClone(l);
  for (const x of [copy.total, ...Object.values(copy.by_target)]) priceLeverage(x, rate);
  return copy;
}
