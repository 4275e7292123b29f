import fs from 'node:fs';
import path from 'node:path';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { loadManifest } from '../manifest/load.js';
import { countDocumentCharacters } from '../report/characters.js';
import {
  minimumJobsToCount,
  billingReport,
  type BillingReport,
  type BillingRow,
  type ReportBy,
} from '../report/queries.js';
import { openState } from '../state/store.js';
import { ConfigError } from '../util/errors.js';

type ReportFormat = 'table' | 'csv' | 'json';

interface ReportOptions {
  config: string;
  since?: string;
  by: ReportBy;
  format: ReportFormat;
  count: boolean;
}

const COLUMNS: Array<{ key: keyof BillingRow; title: string }> = [
  { key: 'documents', title: 'documents' },
  { key: 'billed_characters', title: 'billed chars' },
  { key: 'minimum_documents', title: 'at minimum' },
  { key: 'minimum_billed_characters', title: 'billed at minimum' },
  { key: 'minimum_added_characters', title: 'added by minimum' },
  { key: 'reused_documents', title: 'reused (free)' },
];

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

function formatTable(r: BillingReport): string {
  const head = [r.by, ...COLUMNS.map((c) => c.title)];
  const body = [...r.rows, r.total].map((row) => [
    row.key,
    ...COLUMNS.map((c) => num(row[c.key] as number | null)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const lines = [line(head), rule, ...body.slice(0, -1).map(line), rule, line(body[body.length - 1] ?? [])];
  const t = r.total;
  lines.push('');
  lines.push(
    `${r.since ? `Since ${r.since}: ` : ''}${num(t.billed_characters)} characters billed for ${num(t.documents)} documents; ` +
      `${num(t.reused_documents)} outputs reused from identical translations (not billed).`,
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
  return lines.join('\n');
}

function csvCell(v: string | number | null): string {
  const s = v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function formatCsv(r: BillingReport): string {
  const keys: Array<keyof BillingRow> = ['key', ...COLUMNS.map((c) => c.key), 'minimum_unknown_documents'];
  const head = [r.by, ...keys.slice(1)];
  return [head, ...[...r.rows, r.total].map((row) => keys.map((k) => row[k]))]
    .map((cells) => cells.map(csvCell).join(','))
    .join('\n');
}

export async function reportAction(opts: ReportOptions): Promise<void> {
  const since = opts.since !== undefined ? parseSince(opts.since) : undefined;
  const loaded = await loadManifest(opts.config);
  if (!fs.existsSync(loaded.statePath))
    throw new ConfigError(
      `no state file at ${loaded.statePath} yet: nothing was translated with ${opts.config}; run \`locsync sync -c ${opts.config}\` first`,
    );
  const state = openState(loaded.statePath);
  let report: BillingReport;
  try {
    const counts = new Map<string, number>();
    if (opts.count) {
      const sources = new Map(
        loaded.manifest.mappings.map((m) => [m.name, path.resolve(loaded.dir, m.source)]),
      );
      for (const j of minimumJobsToCount(state, since)) {
        const dir = sources.get(j.mapping);
        if (!dir || counts.has(j.sha256)) continue;
        const n = await countDocumentCharacters(path.join(dir, j.rel_path));
        if (n !== undefined) counts.set(j.sha256, n);
      }
    }
    report = billingReport(state, { by: opts.by, counts, ...(since ? { since } : {}) });
  } finally {
    state.close();
  }
  const text =
    opts.format === 'json'
      ? JSON.stringify(report, null, 2)
      : opts.format === 'csv'
        ? formatCsv(report)
        : formatTable(report);
  process.stdout.write(text + '\n');
}
