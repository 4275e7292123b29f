import { printable } from '../log/printable.js';
import { formatPlanPrice, formatUploadPrice, reasonWords } from '../sync/plan/format-price.js';
import type { BillingRate } from '../billing/money.js';
import { ADVISED } from '../sync/plan/retranslate.js';
import type { PlanPrice, PriceableAction } from '../billing/plan-price.js';
import { priceFromSources } from '../billing/price-sources.js';
import type { SegmentsQuote, UploadPrice } from '../billing/price.js';
import { documentBySegments, extensionOf } from '../documents/format-registry.js';
import { methodForFile } from '../sync/plan/file-method.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { SyncPlan } from '../sync/engine.js';

// The file part of a plan as `plan` and `sync --dry-run` print it (one text for both), with the
// price of every upload and the totals.

/** Lines shown per category of files in text output (--json has them all). */
const MAX_FILE_LINES = 50;

/** A plan's file part with the price of each upload (and of re-translating each stale output). */
export interface PricedFiles extends SyncPlan {
  toTranslate: Array<SyncPlan['toTranslate'][number] & { price: UploadPrice }>;
  stale: Array<SyncPlan['stale'][number] & { price: UploadPrice }>;
  price: PlanPrice;
}

/** Whether an output is translated segment by segment (method: segments, or a Markdown file). */
function segmentsTarget(
  loaded: LoadedManifest,
  ref: { mapping: string; target: string; file: string },
): boolean {
  const m = loaded.manifest.mappings.find((x) => x.name === ref.mapping);
  const t = m?.targets.find((x) => x.lang === ref.target);
  return m !== undefined && t !== undefined && methodForFile(m, t, extensionOf(ref.file)) === 'segments';
}

/** The uploads of a grouped plan, and its stale outputs, as the pricing reads them. */
function priceable(
  loaded: LoadedManifest,
  files: SyncPlan,
  quotes: ReadonlyMap<string, SegmentsQuote>,
): PriceableAction[] {
  const method = (ref: { mapping: string; target: string; file: string }) =>
    segmentsTarget(loaded, ref) ? { method: 'segments' as const } : {};
  return [
    ...files.toTranslate.map((t) => {
      const q = quotes.get(t.output);
      return { kind: 'translate', ref: t, reason: t.why, ...method(t), ...(q ? { segments: q } : {}) };
    }),
    ...files.stale.map((s) => ({ kind: 'stale', ref: s, reason: s.reason, ...method(s) })),
  ];
}

/**
 * Prices every upload of `files` from the source files (see src/billing/price-sources.ts); `quotes`:
 * what the segment-path translations send (src/sync/segments/quote.ts), by output.
 */
export async function priceFiles(
  loaded: LoadedManifest,
  files: SyncPlan,
  quotes: ReadonlyMap<string, SegmentsQuote> = new Map(),
): Promise<PricedFiles> {
  const { prices, price } = await priceFromSources(loaded, priceable(loaded, files, quotes));
  const n = files.toTranslate.length;
  return {
    ...files,
    toTranslate: files.toTranslate.map((t, i) => ({ ...t, price: prices[i] as UploadPrice })),
    stale: files.stale.map((s, i) => ({ ...s, price: prices[n + i] as UploadPrice })),
    price,
  };
}

/** Said of a Markdown (MDX, WebVTT) file: the segment path translates it whatever the method. */
function bySegments(file: string): string {
  const ext = extensionOf(file);
  return documentBySegments(ext) ? `, by segments: the document service takes no .${ext}` : '';
}

function section<T>(title: string, items: T[], line: (item: T) => string): string[] {
  if (!items.length) return [];
  const shown = items.slice(0, MAX_FILE_LINES).map((i) => `  ${line(i)}`);
  if (items.length > MAX_FILE_LINES)
    shown.push(`  ... and ${items.length - MAX_FILE_LINES} more (--json lists all)`);
  return [`${title}:`, ...shown];
}

/** The file part of a plan, priced. */
export function formatFiles(p: PricedFiles, rate?: BillingRate): string {
  const lines = [
    ...section(
      'Files to translate (billed)',
      p.toTranslate,
      (i) =>
        `+ ${i.file} → ${i.output} (${i.target}, ${reasonWords(i.why)}${bySegments(i.file)}): ${formatUploadPrice(i.file, i.price, rate)}`,
    ),
    ...section(
      'Outputs to copy from identical translations (not billed)',
      p.toReuse,
      (i) => `= ${i.output} ← ${i.from}`,
    ),
    ...section(
      'Re-saved, content unchanged (outputs kept, nothing uploaded; `plan --why FILE` shows what a change is)',
      p.resaved,
      (i) => `~ ${i.file} → ${i.output} (${i.target})`,
    ),
    ...section(
      'Uploads to resume (accepted earlier; billed when collected)',
      p.toResume,
      (i) => `> ${i.file} → ${i.output} (${i.target})`,
    ),
    ...section(
      `Stale outputs (kept as they are; \`${ADVISED.retranslate('stale')}\` re-translates them, billed)`,
      p.stale,
      (i) =>
        `* ${i.output} (${i.because ?? reasonWords(i.reason)}): re-translating bills ${formatUploadPrice(i.file, i.price, rate)}`,
    ),
    ...section('Outputs to delete (source deleted)', p.toDelete, (f) => `- ${f}`),
    ...section(
      'Not sent again (failed max_attempts times, or refused for good; a changed file or setting is)',
      p.gaveUp,
      (i) => `x ${i.file} (${i.target})`,
    ),
    ...section('Unsupported files', p.unsupported, (s) => `? ${s.file}: ${s.message}`),
  ];
  const summary =
    `Files: ${p.toTranslate.length} to translate, ${p.toReuse.length} to reuse, ${p.toResume.length} to resume, ` +
    `${p.stale.length} stale, ${p.toDelete.length} to delete, ${p.unchanged} unchanged` +
    (p.resaved.length ? `, ${p.resaved.length} re-saved, unchanged.` : '.');
  // File names come from outside: each entry stays one line.
  return [...lines, ...(lines.length ? [''] : []), summary, ...formatPlanPrice(p.price, rate)]
    .map(printable)
    .join('\n');
}
