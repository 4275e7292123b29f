import { MINIMUM_BILLED_CHARACTERS } from '../../api/types.js';
import { formatBilledCalls } from '../../billing/billed-calls.js';
import { formatBill, formatCharacters, type BillingRate } from '../../billing/money.js';
import { leverageLines } from '../../billing/leverage-lines.js';
import type { PlanPrice, PriceTotals } from '../../billing/plan-price.js';
import { hasMinimum, isUncountedFormat, type SegmentsQuote, type UploadPrice } from '../../billing/price.js';
import { isStringFormat } from '../../documents/format-registry.js';
import { extOf } from './fingerprint.js';
import { STALE_ADVICE } from './retranslate.js';
import type { StaleReason } from './types.js';

// The price of a plan as people read it: one clause per planned upload, and the totals per target
// language, mapping and reason, with the stale outputs' re-translation priced apart.

/** Words for the reasons of a plan (the JSON keeps the codes). */
const REASON_WORDS: Record<string, string> = {
  'settings-changed': 'settings changed',
  'output-missing': 'output missing',
  'lost-download': 'lost download',
  'wording-imported': 'wording imported (from memory)',
  style: STALE_ADVICE.style.words,
  settings: STALE_ADVICE.settings.words,
};
export function reasonWords(reason: string): string {
  return REASON_WORDS[reason] ?? reason;
}

/** "1,234 characters" / "50,000 characters (1,234 + 48,766 minimum)" / "0 characters (image)". */
export function formatUploadPrice(file: string, p: UploadPrice, rate?: BillingRate): string {
  const bill = formatBill(p.billed, rate);
  if (p.segments) return formatSegmentsPrice(file, p.segments, bill, rate);
  if (p.characters === null)
    return p.billed > 0 ? `at least ${bill} (not counted: minimum)` : 'characters unknown (not counted)';
  if (p.minimumAdded > 0)
    return `${bill}: ${formatCharacters(p.characters)} + ${formatCharacters(p.minimumAdded)} minimum`;
  if (isUncountedFormat(file)) return `${bill} (image)`;
  return bill;
}

/**
 * "3 new segments, 412 from memory: 240 characters", and for documents the document path bills at
 * least the minimum for, what it would have billed.
 */
function formatSegmentsPrice(file: string, q: SegmentsQuote, bill: string, rate?: BillingRate): string {
  // A string file's segments are its keys: what a string team counts (docs/strings/README.md).
  const words = isStringFormat(extOf(file))
    ? `${q.sent} key${q.sent === 1 ? '' : 's'} missing or changed, ${q.fromMemory} from memory: ${bill}`
    : `${q.sent} new segment${q.sent === 1 ? '' : 's'}, ${q.fromMemory} from memory: ${bill}`;
  return hasMinimum(file)
    ? `${words} (the document path would bill ${formatBill(q.documentPath, rate)})`
    : words;
}

/** The billed calls of a plan's totals: "1 upload", "3 documents: 1 upload and 4 text requests". */
export function formatPlannedCalls(t: PriceTotals): string {
  return formatBilledCalls({ documents: t.documents, uploads: t.uploads, textRequests: t.text_requests });
}

function totalsLine(t: PriceTotals, rate?: BillingRate): string {
  const parts = [`${formatPlannedCalls(t)}, ${formatBill(t.billed, rate)}`];
  if (t.minimum_added > 0)
    parts.push(
      `${formatCharacters(t.minimum_added)} of them added by the ${formatCharacters(MINIMUM_BILLED_CHARACTERS)}-character minimum`,
    );
  if (t.uncounted > 0) parts.push(`${t.uncounted} not counted (priced at their minimum)`);
  return parts.join('; ');
}

function groupLine(
  title: string,
  group: Record<string, PriceTotals>,
  rate?: BillingRate,
  words = false,
): string {
  const keys = Object.keys(group).sort();
  return `  by ${title}: ${keys
    .map((k) => `${words ? reasonWords(k) : k} ${formatBill((group[k] as PriceTotals).billed, rate)}`)
    .join(' · ')}`;
}

/** The "Cost" section of `plan` (and `sync --dry-run`). */
export function formatPlanPrice(price: PlanPrice, rate?: BillingRate): string[] {
  const lines = [`Billed by this plan: ${totalsLine(price.total, rate)}`];
  // Uploaded, not billed: the neighbours of short texts and labels, sent as `context`.
  if (price.total.context_characters > 0)
    lines.push(
      `  uploaded with the text requests as context (not billed): ${formatCharacters(price.total.context_characters)} characters`,
    );
  if (price.total.documents > 0) {
    lines.push(groupLine('target', price.by_target, rate));
    lines.push(groupLine('mapping', price.by_mapping, rate));
    lines.push(groupLine('reason', price.by_reason, rate, true));
  }
  if (price.leverage) lines.push(...leverageLines(price.leverage, 'plan', rate));
  if (price.stale.documents > 0) {
    const how = Object.keys(price.stale_by_reason)
      .sort()
      .map(
        (k) =>
          `${reasonWords(k)}: ${(price.stale_by_reason[k] as PriceTotals).documents} (${formatBill((price.stale_by_reason[k] as PriceTotals).billed, rate)}; \`--retranslate ${STALE_ADVICE[k as StaleReason].retranslate}\`)`,
      )
      .join(', ');
    lines.push(
      `Not billed unless asked: ${price.stale.documents} stale output${price.stale.documents === 1 ? '' : 's'} would bill ${formatBill(price.stale.billed, rate)} to re-translate (${how}; \`--retranslate stale\` for all).`,
    );
  }
  return lines;
}
