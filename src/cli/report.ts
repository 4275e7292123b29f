import { writeResult } from '../log/terminal.js';
import fs from 'node:fs';
import path from 'node:path';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { openCharacterCounter } from '../billing/characters.js';
import { costOf, formatBill, formatMoney, type BillingRate } from '../billing/money.js';
import { formatRepeatedUploads } from '../report/format-repeated.js';
import { leverageCsvCells, leverageReportLines, priceRowsLeverage } from '../report/format-leverage.js';
import {
  BILLING_COLUMNS,
  billingByMonthAndLanguage,
  minimumJobsToCount,
  repeatedUploads,
  billingReport,
  type RepeatedUpload,
  type BillingReport,
  type BillingRow,
  type ReportBy,
  type ReportSource,
} from '../report/queries.js';
import { openState } from '../state/store.js';
import type { JobLedger, QaResultStore } from '../state/types.js';
import { claimOrClose } from './open-state.js';
import { ConfigError, EXIT } from '../util/errors.js';
import type { UsageResponse } from '../api/types.js';
import { billingPeriod, formatReconciliation, reconcile, type Reconciliation } from '../report/reconcile.js';

type ReportFormat = 'table' | 'csv' | 'json' | 'html';

interface ReportOptions {
  config: string;
  since?: string;
  by: ReportBy;
  format: ReportFormat;
  json?: boolean;
  output?: string;
  count: boolean;
  /** Compare with the service's usage (GET /v2/usage); exit 1 when the gap is above `threshold`. */
  reconcile?: boolean;
  threshold?: string;
}

const COLUMNS = BILLING_COLUMNS;

/** `--since`: a date (YYYY-MM-DD) or a full ISO time; returns the ISO string compared with finished_at. */
export function parseSince(value: string): string {
  const t = /^\d{4}-\d{2}(-\d{2})?$/.test(value)
    ? Date.parse(value.length === 7 ? `${value}-01` : value)
    : Date.parse(value);
  if (!/^\d{4}-\d{2}/.test(value) || Number.isNaN(t))
    throw new ConfigError(
      `--since: "${value}" is not a date; write it like 2026-01-31 (or 2026-01 for a month)`,
    );
  return new Date(t).toISOString();
}

const num = (n: number | null) => (n === null ? '?' : n.toLocaleString('en-US'));

/** The report with what was billed in money (billing: of the manifest) and the repeated uploads. */
interface PricedReport extends BillingReport {
  currency?: string;
  /** billed_characters of each row (and the total) in money, by row key. */
  cost?: Record<string, number>;
  possibly_billed_twice: RepeatedUpload[];
  reconciliation?: Reconciliation;
}

function priceReport(r: BillingReport, repeated: RepeatedUpload[], rate?: BillingRate): PricedReport {
  if (!rate) return { ...r, possibly_billed_twice: repeated };
  priceRowsLeverage([...r.rows, r.total], rate);
  const cost = Object.fromEntries(
    [...r.rows, r.total].map((row) => [row.key, costOf(row.billed_characters, rate)]),
  );
  return { ...r, currency: rate.currency, cost, possibly_billed_twice: repeated };
}

function formatTable(r: PricedReport, rate?: BillingRate): string {
  const head = [r.by, ...COLUMNS.map((c) => c.title), ...(rate ? [rate.currency] : [])];
  const body = [...r.rows, r.total].map((row) => [
    row.key,
    ...COLUMNS.map((c) => num(row[c.key] as number | null)),
    ...(rate ? [formatMoney(r.cost?.[row.key] ?? 0, rate.currency)] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const lines = [line(head), rule, ...body.slice(0, -1).map(line), rule, line(body[body.length - 1] ?? [])];
  const t = r.total;
  lines.push('');
  lines.push(
    `${r.since ? `Since ${r.since}: ` : ''}${formatBill(t.billed_characters, rate)} billed for ${num(t.documents)} documents; ` +
      `${num(t.reused_documents)} outputs reused from identical translations (not billed).`,
  );
  if (t.unfinished_characters)
    lines.push(
      `${num(t.unfinished_characters)} of those characters are text requests of segment documents not done yet (stopped partway or failed): billed already; the next sync sends only the segments still missing.`,
    );
  if (t.minimum_documents) {
    lines.push(
      `${t.minimum_documents} documents (pptx/docx/doc/xlsx/pdf) were billed at the ${MINIMUM_BILLED_CHARACTERS.toLocaleString('en-US')}-character minimum: ` +
        `${num(t.minimum_billed_characters)} characters.` +
        (t.minimum_added_characters !== null
          ? ` The minimum added ${num(t.minimum_added_characters)} characters over their real count (counted by locsync from the source files)` +
            (t.minimum_unknown_documents
              ? ` (real count unknown for ${t.minimum_unknown_documents} of them).`
              : '.')
          : ` Their real character count is unknown (source files changed or gone), so what the minimum added is unknown (at most ${num(t.minimum_billed_characters)}).`) +
        ' Combining small documents into one file, or sending them as txt/html, avoids the minimum.',
    );
  }
  const leverage = leverageReportLines(r.rows, r.total, rate);
  if (leverage.length) lines.push('', ...leverage);
  const repeated = formatRepeatedUploads(r.possibly_billed_twice, rate);
  if (repeated.length) lines.push('', ...repeated);
  if (r.reconciliation) lines.push('', ...formatReconciliation(r.reconciliation));
  return lines.join('\n');
}

function csvCell(v: string | number | null): string {
  const s = v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * One line per row and the total, every column of the JSON rows (figures unformatted, for a
 * spreadsheet), with the cost in the manifest's currency when it has a rate.
 */
function formatCsv(r: PricedReport): string {
  const keys = [
    'key',
    ...COLUMNS.map((c) => c.key),
    'minimum_unknown_documents',
    'unfinished_characters',
    'possibly_billed_characters',
  ] as const satisfies ReadonlyArray<keyof BillingRow>;
  const money = r.currency ? [`cost_${r.currency}`] : [];
  // The segment path's leverage columns after the money (the plan's: new, repeated, from memory).
  const leverageHead = leverageCsvCells(r.total.leverage, r.currency).map(([name]) => name);
  const head = [r.by, ...keys.slice(1), ...money, ...leverageHead];
  const body = [...r.rows, r.total].map((row) => [
    ...keys.map((k) => row[k] as string | number | null),
    ...(r.currency ? [(r.cost?.[row.key] ?? 0).toFixed(2)] : []),
    ...leverageCsvCells(row.leverage, r.currency).map(([, v]) => v),
  ]);
  return [head, ...body].map((cells) => cells.map(csvCell).join(',')).join('\n');
}

/** The rows of the report, from the state on either backend (read only). */
async function openReportRows(
  loaded: LoadedManifest,
  config: string,
  since: string | undefined,
): Promise<{ rows: ReportSource; jobs: JobLedger; qa: QaResultStore; close: () => Promise<void> }> {
  const nothingYet = (where: string) =>
    new ConfigError(
      `no state ${where} yet: nothing was translated with ${config}; run \`locsync sync -c ${config}\` first`,
    );
  const pgLoc = loaded.postgres;
  if (!pgLoc) {
    if (!fs.existsSync(loaded.statePath)) throw nothingYet(`file at ${loaded.statePath}`);
    const state = openState(loaded.statePath);
    claimOrClose(state, loaded, false);
    return { rows: state, jobs: state.jobs, qa: state.qaResults, close: async () => state.close() };
  }
  const [{ PostgresState }, { schemaVersion, refuseForeignTables }, { postgresReportRows }] =
    await Promise.all([
      import('../state/postgres/store.js'),
      import('../state/postgres/migrate.js'),
      import('../report/postgres-rows.js'),
    ]);
  const state = await PostgresState.open(pgLoc, { migrate: false, connections: 3 });
  try {
    if ((await schemaVersion(state.pool)) === 0) {
      await refuseForeignTables(state.pool, pgLoc.url);
      throw nothingYet(`in ${state.location}`);
    }
    return {
      rows: await postgresReportRows(state.pool, since),
      jobs: state.jobs,
      qa: state.qaResults,
      close: () => state.close(),
    };
  } catch (err) {
    await state.close();
    throw err;
  }
}

/** A gap up to this many characters is taken as agreement (the service rounds nothing; tags may differ). */
const DEFAULT_THRESHOLD = 1_000;

/** The service's usage for its billing period (a call to the service, embedded or not). */
async function serviceUsage(loaded: LoadedManifest): Promise<UsageResponse> {
  const { openConnection } = await import('./connect.js');
  const connection = await openConnection(loaded, { stateDir: path.dirname(loaded.statePath) });
  try {
    return await connection.client.getUsage();
  } finally {
    await connection.close();
  }
}

function thresholdOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_THRESHOLD;
  const n = Number(value.replace(/[,_]/g, ''));
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(
      `--threshold: "${value}" is not a number of characters (a whole number, 0 or more)`,
    );
  return n;
}

export async function reportAction(opts: ReportOptions): Promise<void> {
  const since = opts.since !== undefined ? parseSince(opts.since) : undefined;
  const loaded = await loadManifest(opts.config);
  const threshold = thresholdOf(opts.threshold);
  // Asked first: the embedded service reads the state folder, and an error of the call is the
  // user's to see before any report is printed.
  const usage = opts.reconcile ? await serviceUsage(loaded) : undefined;
  const { rows: state, jobs, qa, close } = await openReportRows(loaded, opts.config, since);
  const rate = loaded.manifest.billing;
  let report: PricedReport;
  let html: string | undefined;
  try {
    const counts = new Map<string, number>();
    if (opts.count) {
      const sources = new Map(
        loaded.manifest.mappings.map((m) => [m.name, path.resolve(loaded.dir, m.source)]),
      );
      const toCount = minimumJobsToCount(state, since);
      const counter = toCount.length ? await openCharacterCounter() : undefined;
      try {
        for (const j of toCount) {
          const dir = sources.get(j.mapping);
          if (!dir || counts.has(j.sha256)) continue;
          const n = await counter?.count(path.join(dir, j.rel_path));
          if (n !== undefined) counts.set(j.sha256, n);
        }
      } finally {
        await counter?.close();
      }
    }
    const costCentres = new Map(
      loaded.manifest.mappings.flatMap((m) => (m.billing ? [[m.name, m.billing.cost_centre] as const] : [])),
    );
    report = priceReport(
      billingReport(state, {
        by: opts.by,
        counts,
        costCentres,
        leverage: true,
        ...(since ? { since } : {}),
      }),
      repeatedUploads(state, since),
      rate,
    );
    if (usage) {
      const period = billingPeriod(usage, new Date());
      const inPeriod = billingReport(state, { by: 'language', since: period.start });
      report.reconciliation = reconcile({
        usage,
        period,
        ledger: {
          characters: await jobs.billedSince(period.start),
          possibly: inPeriod.total.possibly_billed_characters,
        },
        threshold,
      });
    }
    if (opts.format === 'html' && !opts.json) {
      const [{ renderReportPage }, { editedOutputs }, { qaOutputs }] = await Promise.all([
        import('../web/report-page.js'),
        import('../sync/edited-outputs.js'),
        import('../report/qa-outputs.js'),
      ]);
      const scope = { counts, ...(since ? { since } : {}) };
      html = renderReportPage({
        edited: await editedOutputs(jobs, loaded.dir, opts.config, path.dirname(loaded.statePath)),
        qa: await qaOutputs(qa),
        generatedAt: new Date().toISOString(),
        pipeline: loaded.path,
        grouped: report,
        byMonthLanguage: billingByMonthAndLanguage(state, scope),
        ...(report.reconciliation ? { reconciliation: formatReconciliation(report.reconciliation) } : {}),
      });
    }
  } finally {
    await close();
  }
  const format: ReportFormat = opts.json ? 'json' : opts.format;
  const text =
    html !== undefined
      ? html.trimEnd()
      : format === 'json'
        ? JSON.stringify(report, null, 2)
        : format === 'csv'
          ? formatCsv(report)
          : formatTable(report, rate);
  if (opts.output) {
    fs.writeFileSync(opts.output, text + '\n');
    process.stderr.write(`locsync: wrote the report to ${opts.output}\n`);
  } else if (html !== undefined || format !== 'table') process.stdout.write(text + '\n');
  else writeResult(text);
  if (report.reconciliation && !report.reconciliation.within_threshold) process.exitCode = EXIT.failed;
}
