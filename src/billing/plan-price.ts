import path from 'node:path';
import { addLeverage, emptyLeverage, priceLeverage, type LeverageByTarget } from './leverage.js';
import { costOf, type BillingRate } from './money.js';
import {
  priceAllSegments,
  priceSegments,
  priceUpload,
  type SegmentsQuote,
  type UploadPrice,
} from './price.js';

// The price of a plan: every planned upload priced (./price.ts), totals per mapping, target language
// and reason, and apart what re-translating the stale outputs would bill. Characters are counted
// once per content (identical files are identical bills).

/** The parts of a planned action that a price needs (src/sync/plan/types.ts PlannedAction). */
export interface PriceableAction {
  kind: string;
  ref: { mapping: string; file: string; target: string };
  /** Why it is translated (translate), or why it is stale (stale). */
  reason?: string;
  /** The source's content hash, when the plan knows it. */
  source?: { sha256: string };
  /** Translated segment by segment (method: segments): billed by the characters sent, no minimum. */
  method?: 'segments';
  /** What the segment path sends for it (a planned translation whose segments were looked up). */
  segments?: SegmentsQuote;
}

/** Characters of a source document as the service counts them; undefined when it cannot be read. */
export type CountCharacters = (
  ref: PriceableAction['ref'],
  sha256: string | undefined,
) => Promise<number | undefined>;

export interface PriceTotals {
  /** Documents translated (files x targets): the uploads and those sent as text requests. */
  documents: number;
  /** Of those, documents uploaded whole (each one billed call). */
  uploads: number;
  /**
   * Text requests the others send (method: segments), cut to the service's limits; a document
   * whose segments were not looked up counts as one.
   */
  text_requests: number;
  /** Characters counted in their text (documents that could not be counted add none). */
  characters: number;
  /** Characters of `context` the text requests upload with them (not billed). */
  context_characters: number;
  /** Characters the 50,000 minimum of docx/pptx/doc/xlsx/pdf adds over their text. */
  minimum_added: number;
  /** What they bill: characters + minimum_added (+ the minimum of uncounted documents). */
  billed: number;
  /** Documents whose characters could not be counted (priced at their format's minimum, or 0). */
  uncounted: number;
  /** billed in the manifest's currency (billing:), when a rate is set. */
  cost?: number;
}

export interface PlanPrice {
  currency?: string;
  /** Every upload the plan makes (translate actions). */
  total: PriceTotals;
  by_mapping: Record<string, PriceTotals>;
  by_target: Record<string, PriceTotals>;
  by_reason: Record<string, PriceTotals>;
  /** What re-translating the stale outputs would bill (`sync --retranslate ...`), by stale reason. */
  stale: PriceTotals;
  stale_by_reason: Record<string, PriceTotals>;
  /**
   * The segment-path translations' leverage (./leverage.ts): in total and per target language;
   * absent when the plan translates nothing segment by segment.
   */
  leverage?: LeverageByTarget;
}

/**
 * Documents read at once while counting: counting a small document is mostly waiting for the file
 * system (read, scratch write, remove), so many overlap well.
 */
const COUNT_CONCURRENCY = 16;

function emptyTotals(): PriceTotals {
  return {
    documents: 0,
    uploads: 0,
    text_requests: 0,
    characters: 0,
    context_characters: 0,
    minimum_added: 0,
    billed: 0,
    uncounted: 0,
  };
}

function add(t: PriceTotals, p: UploadPrice): void {
  t.documents++;
  if (p.textRequests === undefined) t.uploads++;
  else t.text_requests += p.textRequests;
  t.characters += p.characters ?? 0;
  t.context_characters += p.segments?.context ?? 0;
  t.minimum_added += p.minimumAdded;
  t.billed += p.billed;
  if (p.characters === null) t.uncounted++;
}

function addTo(group: Record<string, PriceTotals>, key: string, p: UploadPrice): void {
  add((group[key] ??= emptyTotals()), p);
}

/**
 * Prices every translate and stale action of `actions` (undefined for the others, which bill
 * nothing), and totals them. `count` is asked once per content (sha256) and file extension (per file when the content is unknown).
 */
export async function pricePlan(
  actions: readonly PriceableAction[],
  count: CountCharacters,
  rate?: BillingRate,
): Promise<{ prices: Array<UploadPrice | undefined>; price: PlanPrice }> {
  const price: PlanPrice = {
    ...(rate ? { currency: rate.currency } : {}),
    total: emptyTotals(),
    by_mapping: {},
    by_target: {},
    by_reason: {},
    stale: emptyTotals(),
    stale_by_reason: {},
  };
  // Segments already quoted need no count.
  const priced = actions.filter((a) => (a.kind === 'translate' || a.kind === 'stale') && !a.segments);
  const keyOf = (a: PriceableAction) =>
    a.source?.sha256
      ? `${a.source.sha256}|${path.extname(a.ref.file).toLowerCase()}`
      : `${a.ref.mapping}/${a.ref.file}`;
  // Documents are read a few at a time: the reading waits on the disk as much as on the CPU.
  const pending = [...new Map(priced.map((a) => [keyOf(a), a])).entries()];
  const counted = new Map<string, number | null>();
  let taken = 0;
  const worker = async () => {
    while (taken < pending.length) {
      const [key, a] = pending[taken++] as [string, PriceableAction];
      counted.set(key, (await count(a.ref, a.source?.sha256)) ?? null);
    }
  };
  await Promise.all(Array.from({ length: COUNT_CONCURRENCY }, worker));

  const prices: Array<UploadPrice | undefined> = [];
  for (const a of actions) {
    if (a.kind !== 'translate' && a.kind !== 'stale') {
      prices.push(undefined);
      continue;
    }
    const p = a.segments
      ? priceSegments(a.segments)
      : a.method === 'segments'
        ? priceAllSegments(counted.get(keyOf(a)) ?? null)
        : priceUpload(a.ref.file, counted.get(keyOf(a)) ?? null);
    prices.push(p);
    const reason = a.reason ?? (a.kind === 'stale' ? 'style' : 'new');
    if (a.kind === 'stale') {
      add(price.stale, p);
      addTo(price.stale_by_reason, reason, p);
      continue;
    }
    add(price.total, p);
    if (a.segments?.leverage) {
      price.leverage ??= { total: emptyLeverage(), by_target: {} };
      addLeverage(price.leverage.total, a.segments.leverage);
      addLeverage((price.leverage.by_target[a.ref.target] ??= emptyLeverage()), a.segments.leverage);
    }
    addTo(price.by_mapping, a.ref.mapping, p);
    addTo(price.by_target, a.ref.target, p);
    addTo(price.by_reason, reason, p);
  }
  if (rate) {
    const all = [
      price.total,
      price.stale,
      ...[price.by_mapping, price.by_target, price.by_reason, price.stale_by_reason].flatMap((g) =>
        Object.values(g),
      ),
    ];
    for (const t of all) t.cost = costOf(t.billed, rate);
  }
  if (price.leverage)
    for (const l of [price.leverage.total, ...Object.values(price.leverage.by_target)])
      priceLeverage(l, rate);
  return { prices, price };
}
