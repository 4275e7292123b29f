import { formatBill, type BillingRate } from '../billing/money.js';
import { formatCount, formatCounted } from '../util/format.js';
import { wrapWords } from '../util/fit-text.js';
import type { Delivery, WrittenFile } from './delivered.js';

// The message of a delivery's commit, as git's own project asks for one: a subject of at most 72
// characters saying what was delivered, a blank line, a body wrapped at 72 listing the files per
// language, the run, the bill and what is left failed (docs/operations.md shows the form).

const SUBJECT_MAX = 72;
const BODY_WIDTH = 72;

/** Target languages in the order of their first file. */
function languagesOf(written: WrittenFile[]): string[] {
  return [...new Set(written.map((w) => w.target))];
}

/** "locsync: 12 documents into de, fr (3,210 characters)", within 72 characters. */
export function commitSubject(d: Delivery): string {
  const billed = d.written.reduce((n, w) => n + w.billed, 0);
  const removed = d.removed.length ? formatCounted(d.removed.length, 'output') + ' removed' : '';
  if (d.written.length === 0) return `locsync: ${removed} (sources deleted)`;
  const bill = billed > 0 ? `${formatCount(billed)} characters` : 'nothing billed';
  const tail = ` (${bill})${removed ? `, ${removed}` : ''}`;
  const langs = languagesOf(d.written);
  const head = `locsync: ${formatCounted(d.written.length, 'document')} into `;
  const named = `${head}${langs.join(', ')}${tail}`;
  if (named.length <= SUBJECT_MAX) return named;
  const counted = `${head}${formatCounted(langs.length, 'language')}${tail}`;
  return counted.length <= SUBJECT_MAX ? counted : counted.slice(0, SUBJECT_MAX);
}

/** Prose wrapped at 72; an item of a list (`indent`) continues further in. */
const wrap = (text: string, indent = '') =>
  wrapWords(indent + text, BODY_WIDTH, indent ? `${indent}  ` : '').join('\n');

function runsLine(d: Delivery): string {
  const ids = d.runs.map((r) => `#${r}`);
  const what = ids.length === 1 ? `Run ${ids[0]}` : ids.length ? `Runs ${ids.join(', ')}` : 'A run';
  return `${what} of locsync ${d.command}`;
}

function billLine(d: Delivery, rate?: BillingRate): string {
  const translated = d.written.filter((w) => !w.reused);
  const copied = d.written.length - translated.length;
  const billed = translated.reduce((n, w) => n + w.billed, 0);
  const parts = [`${formatBill(billed, rate)} billed for ${formatCounted(translated.length, 'document')}`];
  if (copied) parts.push(`${formatCounted(copied, 'copy', 'copies')} of identical translations (not billed)`);
  return `${parts.join('; ')}.`;
}

/** The body: what was delivered where, the bill, what failed, and trailers naming the runs. */
export function commitBody(d: Delivery, rate?: BillingRate): string {
  const blocks: string[] = [];
  const delivered = d.written.length
    ? `delivered ${formatCounted(d.written.length, 'document')}` +
      (d.removed.length ? ` and removed ${formatCounted(d.removed.length, 'output')}` : '')
    : `removed ${formatCounted(d.removed.length, 'output')}`;
  blocks.push(wrap(`${runsLine(d)} ${delivered}. ${d.written.length ? billLine(d, rate) : ''}`.trim()));
  for (const lang of languagesOf(d.written)) {
    const files = d.written.filter((w) => w.target === lang);
    const lines = files.map((w) =>
      w.beside ? `  ${w.path} (beside a version edited by a person)` : `  ${w.path}`,
    );
    blocks.push([`${lang} (${formatCount(files.length)}):`, ...lines].join('\n'));
  }
  if (d.removed.length)
    blocks.push(
      [
        `Removed, their sources deleted (${formatCount(d.removed.length)}):`,
        ...d.removed.map((p) => `  ${p}`),
      ].join('\n'),
    );
  if (d.failed.length) {
    const again = d.failed.filter((f) => f.willRetry).length;
    const head =
      `Left failed (${formatCount(d.failed.length)}` +
      (again ? `; ${formatCount(again)} retried by the next run` : '') +
      '):';
    blocks.push(
      [head, ...d.failed.map((f) => wrap(`${f.file} -> ${f.target}: ${f.kind}: ${f.error}`, '  '))].join(
        '\n',
      ),
    );
  }
  if (d.runs.length) blocks.push(`Locsync-Run: ${d.runs.join(', ')}`);
  return blocks.join('\n\n');
}

/** The whole message: subject, blank line, body. */
export function commitMessage(d: Delivery, rate?: BillingRate): string {
  return `${commitSubject(d)}\n\n${commitBody(d, rate)}\n`;
}
