import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { BILLING_COLUMNS, type BillingReport, type BillingRow } from '../report/queries.js';
import { anySegments, LEVERAGE_KINDS } from '../report/format-leverage.js';
import { formatCount, formatPercent } from '../util/format.js';
import { stackedBarChart } from './charts.js';
import type { EditedOutput } from '../sync/edited-outputs.js';
import { editedSection } from './edited-section.js';
import type { QaOutputs } from '../report/qa-outputs.js';
import { qaSection } from './qa-section.js';
import { escapeHtml, htmlPage, isolated } from './html.js';

// `locsync report --format html`: the billing report as one self-contained page with charts
// (billed characters by month and language; the share billed at the per-document minimum).

export interface ReportPageData {
  generatedAt: string;
  pipeline: string;
  /** The report grouped as `--by` asks (language, mapping or month): the page's table. */
  grouped: BillingReport;
  byMonthLanguage: Array<BillingRow & { month: string; language: string }>;
  /** Outputs edited by people and the conflicts among them, with what to do (./edited-section.ts). */
  edited?: EditedOutput[];
  /** Outputs the output checks failed or flagged (./qa-section.ts). */
  qa?: QaOutputs;
  /** `--reconcile`: the service's usage against the ledger, as lines of text. */
  reconciliation?: string[];
}

const COLUMNS = BILLING_COLUMNS;

const num = (v: unknown) => (typeof v === 'number' ? formatCount(v) : '?');

function table(r: BillingReport): string {
  const row = (x: BillingRow, tag = 'td') =>
    `<tr><${tag}>${isolated(x.key)}</${tag}>${COLUMNS.map((c) => `<td class="num">${num(x[c.key])}</td>`).join('')}</tr>`;
  return `<table id="billing-table"><thead><tr><th>${escapeHtml(r.by)}</th>${COLUMNS.map((c) => `<th class="num">${c.title}</th>`).join('')}</tr></thead>
<tbody>${r.rows.map((x) => row(x)).join('')}</tbody><tfoot>${row(r.total, 'th')}</tfoot></table>`;
}

/**
 * The segment path's leverage per row (src/billing/leverage.ts): segments and characters of each
 * column, and what the new ones billed. Nothing when no row translated segment by segment.
 */
function leverageTable(r: BillingReport): string {
  if (!anySegments(r.total.leverage)) return '';
  const row = (x: BillingRow, tag = 'td') => {
    const l = x.leverage;
    const cells = LEVERAGE_KINDS.map(
      ({ kind }) =>
        `<td class="num" data-kind="${kind}">${num(l?.[kind].segments ?? 0)} <span class="muted">(${num(l?.[kind].characters ?? 0)} chars)</span></td>`,
    );
    return `<tr><${tag}>${isolated(x.key)}</${tag}>${cells.join('')}<td class="num" data-kind="billed">${num(l?.remaining.characters ?? 0)}</td></tr>`;
  };
  return `<h2>Segments (method: segments)</h2>
<p class="muted">As a translation memory analysis counts them: bought new, repeated within a run (paid once), taken from the memory.</p>
<table id="leverage-table"><thead><tr><th>${escapeHtml(r.by)}</th>${LEVERAGE_KINDS.map((k) => `<th class="num">${k.title}</th>`).join('')}<th class="num">billed chars</th></tr></thead>
<tbody>${r.rows.map((x) => row(x)).join('')}</tbody><tfoot>${row(r.total, 'th')}</tfoot></table>`;
}

export function renderReportPage(d: ReportPageData): string {
  const months = [...new Set(d.byMonthLanguage.map((r) => r.month))].sort();
  const languages = [...new Set(d.byMonthLanguage.map((r) => r.language))].sort();
  const cell = (m: string, l: string) => d.byMonthLanguage.find((r) => r.month === m && r.language === l);
  const byMonth = stackedBarChart({
    title: 'Billed characters by month and target language',
    categories: months,
    series: languages.map((l) => ({
      name: l,
      values: months.map((m) => cell(m, l)?.billed_characters ?? 0),
    })),
    unit: 'characters',
  });
  const monthRows = months.map((m) => d.byMonthLanguage.filter((r) => r.month === m));
  const sum = (rows: BillingRow[], k: keyof BillingRow) =>
    rows.reduce((n, r) => n + ((r[k] as number) ?? 0), 0);
  // Only the documents billed at the minimum: what they held, what the minimum added to that, and
  // (where their real count is not known) the rest of their bill. Characters billed by count are
  // the first chart's.
  const added = (rows: BillingRow[]) => sum(rows, 'minimum_added_characters');
  const unknownShare = (rows: BillingRow[]) =>
    sum(rows, 'minimum_unknown_documents') * MINIMUM_BILLED_CHARACTERS;
  const minimum = stackedBarChart({
    title: `Billed at the ${formatCount(MINIMUM_BILLED_CHARACTERS)}-character minimum, by month`,
    categories: months,
    series: [
      {
        name: 'their own characters',
        values: monthRows.map(
          (rows) => sum(rows, 'minimum_billed_characters') - added(rows) - unknownShare(rows),
        ),
      },
      { name: 'added by the minimum', values: monthRows.map(added) },
      { name: 'at the minimum, real count unknown', values: monthRows.map(unknownShare) },
    ],
    unit: 'characters',
  });
  const anyMinimum = monthRows.some((rows) => sum(rows, 'minimum_billed_characters') > 0);
  const t = d.grouped.total;
  const body = `<h1>Billing report</h1>
<p class="muted">${isolated(d.pipeline)} · made ${escapeHtml(d.generatedAt)}${d.grouped.since ? ` · since ${escapeHtml(d.grouped.since)}` : ''}</p>
<div class="cards">
  <div class="card"><span class="muted">billed characters</span><b id="total-billed">${formatCount(t.billed_characters)}</b></div>
  <div class="card"><span class="muted">documents</span><b>${formatCount(t.documents)}</b></div>
  <div class="card"><span class="muted">billed at minimum</span><b>${formatPercent(t.minimum_billed_characters, t.billed_characters)}</b></div>
  <div class="card"><span class="muted">reused (free)</span><b>${formatCount(t.reused_documents)}</b></div>
</div>
<h2>By month</h2>
${months.length ? byMonth : '<p class="muted">Nothing billed yet.</p>'}
<h2>Minimum-billed share</h2>
<p class="muted">pptx, docx, doc, xlsx and pdf documents are billed at least ${formatCount(MINIMUM_BILLED_CHARACTERS)} characters each.
${t.minimum_added_characters !== null ? `The minimum added ${formatCount(t.minimum_added_characters)} characters over their real count.` : ''}</p>
${anyMinimum ? minimum : '<p class="muted">No document was billed at the minimum.</p>'}
${d.reconciliation ? `<h2>Reconciled with the service</h2><pre id="reconciliation">${d.reconciliation.map(escapeHtml).join('\n')}</pre>` : ''}
<h2>By ${escapeHtml(d.grouped.by)}</h2>
${table(d.grouped)}
${leverageTable(d.grouped)}
${d.edited ? editedSection(d.edited) : ''}
${d.qa ? qaSection(d.qa) : ''}`;
  return htmlPage({ title: `locsync billing report — ${d.pipeline}`, body });
}
