import { costOf, type BillingRate } from './money.js';

// The leverage of a plan's segment-path translations, as translation-management tools analyse a
// job: of its segments (and their characters), which are new, which repeat a segment sent earlier
// in the same run (paid once), which the memory holds from a person or a memory brought in
// (reviewed or imported: docs/memory.md) and which from the service (machine), and what the
// remaining characters cost. Per target language and in total.

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

export type LeverageKind = 'new' | 'repeated' | 'memory_reviewed' | 'memory_machine';

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
