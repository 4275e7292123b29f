import { createHash } from 'node:crypto';
import { csvRecords, tsvRecords } from '../util/csv.js';

// Glossary entries as files kept in git (CSV or TSV, one file per language pair) and as the service
// sends them (TSV): parsing with the line of every entry, the service's rules for an entry, a hash of
// a dictionary's content, and the differences between two versions of a dictionary.

export type EntriesFormat = 'csv' | 'tsv';

/** One entry as read, with the (1-based) line it starts on. */
export interface EntryRow {
  source: string;
  target: string;
  line: number;
  /** Last line of the entry (a quoted CSV field may hold line breaks); `line` when absent. */
  endLine?: number;
}

/** A problem of one entry or line; `line` is 1-based. */
export interface EntryProblem {
  line: number;
  message: string;
}

/** The format a glossary file is written in, by its extension (undefined: neither). */
export function formatOfFile(file: string): EntriesFormat | undefined {
  const lower = file.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.tsv') || lower.endsWith('.tab')) return 'tsv';
  return undefined;
}

/** Why an entry's term is not accepted by the service ('' when it is). */
function termProblem(side: 'source' | 'target', term: string): string {
  if (term === '') return `empty ${side} term`;
  if (term.trim() !== term) return `stray whitespace around the ${side} term ${JSON.stringify(term)}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(term))
    return `the ${side} term ${JSON.stringify(term)} holds a control character (tab, line break ...)`;
  return '';
}

/**
 * Check entries as the service does: no empty side, no whitespace around a term, no control
 * characters, no source term twice. Problems name the line of the entry.
 */
export function checkEntries(rows: EntryRow[]): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const seen = new Map<string, number>();
  for (const r of rows) {
    for (const side of ['source', 'target'] as const) {
      const p = termProblem(side, r[side]);
      if (p) problems.push({ line: r.line, message: p });
    }
    const first = seen.get(r.source);
    if (first !== undefined)
      problems.push({
        line: r.line,
        message: `duplicate source term ${JSON.stringify(r.source)} (first on line ${first})`,
      });
    else seen.set(r.source, r.line);
  }
  return problems;
}

/** Words a spreadsheet's first row names its columns with (any case). */
const HEADER_WORDS = new Set([
  'source',
  'target',
  'term',
  'terms',
  'translation',
  'source term',
  'target term',
  'source_term',
  'target_term',
]);

/** A column title: a header word, or the language code of its side of the pair (en, en-US, de_DE). */
function isColumnTitle(field: string, lang: string | undefined): boolean {
  const f = field.trim().toLowerCase();
  return (
    HEADER_WORDS.has(f) ||
    (lang !== undefined && /^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*$/.test(f) && f.split(/[-_]/)[0] === lang)
  );
}

/**
 * Whether a file's first row names its columns instead of holding an entry: both its first two
 * fields are column titles (`source,target`, `Term,Translation`, the pair's `en,de`).
 */
export function isHeaderRow(
  fields: readonly string[],
  pair?: { source_lang: string; target_lang: string },
): boolean {
  return (
    fields.length >= 2 &&
    isColumnTitle(fields[0]!, pair?.source_lang) &&
    isColumnTitle(fields[1]!, pair?.target_lang)
  );
}

/**
 * What a file's first row is: `true` a header (skipped), `false` an entry, `'auto'` a header when
 * it reads as one (isHeaderRow).
 */
export type HeaderRule = boolean | 'auto';

/** The first row of a file, skipped as a header: its line and its text as written. */
export interface SkippedHeader {
  line: number;
  fields: string[];
}

/**
 * Parse a glossary file's text. CSV rows are `source,target` (the service's optional third and
 * fourth columns, source and target language, must match the file's pair when present); TSV rows
 * are `source<TAB>target`. A UTF-8 byte order mark is ignored. The first row is skipped as a header
 * as `header` says (default: when it reads as one); `header` in the answer says which row was.
 */
export function parseEntries(
  text: string,
  format: EntriesFormat,
  pair?: { source_lang: string; target_lang: string },
  header: HeaderRule = 'auto',
): { rows: EntryRow[]; problems: EntryProblem[]; header?: SkippedHeader } {
  const problems: EntryProblem[] = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const parsed = format === 'csv' ? csvRecords(body) : { records: tsvRecords(body) };
  let records = parsed.records;
  const first = records[0];
  const skipped =
    first && (header === true || (header === 'auto' && isHeaderRow(first.fields, pair)))
      ? { line: first.line, fields: first.fields }
      : undefined;
  if (skipped) records = records.slice(1);
  if ('unclosedAt' in parsed && parsed.unclosedAt !== undefined)
    problems.push({ line: parsed.unclosedAt, message: 'a quoted field is not closed' });
  const rows: EntryRow[] = [];
  const sep = format === 'csv' ? 'comma' : 'tab';
  for (const { fields, line, endLine } of records) {
    if (fields.length < 2) {
      problems.push({
        line,
        message: `expected "source${format === 'csv' ? ',' : '<TAB>'}target" (no ${sep})`,
      });
      continue;
    }
    if (format === 'tsv' && fields.length > 2) {
      problems.push({ line, message: 'more than one tab: a term cannot hold a tab' });
      continue;
    }
    if (fields.length > 4 || fields.length === 3) {
      problems.push({
        line,
        message: `expected 2 columns (or 4: source, target, source language, target language), found ${fields.length}`,
      });
      continue;
    }
    if (fields.length === 4 && pair) {
      const [sl, tl] = [fields[2]!.trim().toLowerCase(), fields[3]!.trim().toLowerCase()];
      if (sl !== pair.source_lang || tl !== pair.target_lang) {
        problems.push({
          line,
          message: `languages ${sl}-${tl} do not match the file's pair ${pair.source_lang}-${pair.target_lang}`,
        });
        continue;
      }
    }
    rows.push({ source: fields[0]!, target: fields[1]!, line, endLine });
  }
  problems.push(...checkEntries(rows));
  problems.sort((a, b) => a.line - b.line);
  return { rows, problems, ...(skipped ? { header: skipped } : {}) };
}

/** Entries as the service takes and gives them: `source<TAB>target` lines. */
export function toTsv(entries: ReadonlyMap<string, string>): string {
  return [...entries].map(([s, t]) => `${s}\t${t}`).join('\n');
}

/** Entries of the service's TSV (lines that are not `source<TAB>target` are ignored). */
export function fromTsv(tsv: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of tsv.split(/\r?\n/)) {
    const tab = line.indexOf('\t');
    if (tab > 0) out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}

function csvField(s: string): string {
  return /[",\r\n]/.test(s) || s === '' ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One entry as a line of a file in `format`. */
export function entryLine(source: string, target: string, format: EntriesFormat): string {
  return format === 'csv' ? `${csvField(source)},${csvField(target)}` : `${source}\t${target}`;
}

/**
 * sha256 of a dictionary's content: its entries sorted by source term (the service does not keep
 * our order, and the order does not change a translation).
 */
export function entriesHash(entries: ReadonlyMap<string, string>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

/** How a dictionary changes from one version to another. */
export interface EntriesDiff {
  added: Array<[string, string]>;
  removed: Array<[string, string]>;
  /** [source, from, to] */
  changed: Array<[string, string, string]>;
}

export function diffEntries(from: ReadonlyMap<string, string>, to: ReadonlyMap<string, string>): EntriesDiff {
  const diff: EntriesDiff = { added: [], removed: [], changed: [] };
  for (const [s, t] of to) {
    const old = from.get(s);
    if (old === undefined) diff.added.push([s, t]);
    else if (old !== t) diff.changed.push([s, old, t]);
  }
  for (const [s, t] of from) if (!to.has(s)) diff.removed.push([s, t]);
  return diff;
}

export function isEmptyDiff(d: EntriesDiff): boolean {
  return d.added.length + d.removed.length + d.changed.length === 0;
}

/** "3 added, 1 removed, 2 changed" (parts that are 0 left out; "no entry changed" when all are). */
export function diffCounts(d: EntriesDiff): string {
  const parts: string[] = [];
  if (d.added.length) parts.push(`${d.added.length} added`);
  if (d.removed.length) parts.push(`${d.removed.length} removed`);
  if (d.changed.length) parts.push(`${d.changed.length} changed`);
  return parts.join(', ') || 'no entry changed';
}
