// Glossary entries as the real service takes them: TSV (source<TAB>target) or CSV (source,target
// with optional source and target language columns, RFC 4180 quoting), validated by the real
// service's rules: no empty or duplicate source terms, no leading/trailing whitespace, no control
// characters, bounded sizes.
import { badRequest } from './errors.js';

/** Source term -> target term, in the order given. */
export type GlossaryTerms = Array<[string, string]>;

export const GLOSSARY_LIMITS = {
  /** UTF-8 bytes of one source or target term. */
  termBytes: 1024,
  /** UTF-8 bytes of one dictionary's entries as sent. */
  dictionaryBytes: 10 * 1024 * 1024,
  /** Characters of a glossary's name. */
  nameMax: 1024,
} as const;

export const ENTRIES_FORMATS = ['tsv', 'csv'] as const;
export type EntriesFormat = (typeof ENTRIES_FORMATS)[number];

// C0 and C1 control characters (tab and newline separate entries, so they can never be in a term).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** RFC 4180 fields of one CSV text: rows of fields, quotes doubled inside quoted fields. */
function csvRows(text: string): Array<{ line: number; cells: string[] }> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let i = 0;
  const endRow = (): void => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') rows.push({ line: rowLine, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        cell += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += ch;
    i++;
  }
  if (quoted)
    throw badRequest(`Invalid CSV entries: unterminated quote (line ${rowLine}).`, 'invalid_entries');
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}

function tsvRows(text: string): Array<{ line: number; cells: string[] }> {
  return text
    .split(/\r\n|\n|\r/)
    .map((l, i) => ({ line: i + 1, cells: l.split('\t') }))
    .filter((r) => r.cells.length > 1 || r.cells[0] !== '');
}

function checkTerm(term: string, what: string, line: number): void {
  const where = `(line ${line})`;
  if (term === '')
    throw badRequest(`Invalid glossary entry: empty ${what} term ${where}.`, 'invalid_entries');
  if (term.trim() !== term)
    throw badRequest(
      `Invalid glossary entry: ${what} term '${term.trim()}' has leading or trailing whitespace ${where}.`,
      'invalid_entries',
    );
  if (CONTROL.test(term))
    throw badRequest(
      `Invalid glossary entry: ${what} term contains a control character ${where}.`,
      'invalid_entries',
    );
  if (Buffer.byteLength(term) > GLOSSARY_LIMITS.termBytes)
    throw badRequest(
      `Invalid glossary entry: ${what} term is longer than ${GLOSSARY_LIMITS.termBytes} bytes ${where}.`,
      'invalid_entries',
    );
}

/**
 * Parses and validates entries. CSV rows may carry the dictionary's languages in columns 3 and 4;
 * they must then match `langs` (case-insensitive).
 */
export function parseGlossaryEntries(
  text: string,
  format: EntriesFormat,
  langs: { source: string; target: string },
): GlossaryTerms {
  if (Buffer.byteLength(text) > GLOSSARY_LIMITS.dictionaryBytes)
    throw badRequest(
      `Glossary entries are larger than ${GLOSSARY_LIMITS.dictionaryBytes} bytes.`,
      'glossary_too_large',
    );
  const rows = format === 'csv' ? csvRows(text) : tsvRows(text);
  const seen = new Set<string>();
  const out: GlossaryTerms = [];
  for (const { line, cells } of rows) {
    const expected = format === 'csv' ? '2 or 4' : '2';
    if (cells.length !== 2 && !(format === 'csv' && cells.length === 4))
      throw badRequest(
        `Invalid glossary entry: ${cells.length} column(s) where ${expected} are expected (line ${line}).`,
        'invalid_entries',
      );
    const [source, target, sl, tl] = cells as [string, string, string?, string?];
    if (sl !== undefined && tl !== undefined) {
      if (sl.toLowerCase() !== langs.source.toLowerCase() || tl.toLowerCase() !== langs.target.toLowerCase())
        throw badRequest(
          `Invalid glossary entry: languages ${sl}/${tl} do not match the dictionary's ${langs.source}/${langs.target} (line ${line}).`,
          'invalid_entries',
        );
    }
    checkTerm(source, 'source', line);
    checkTerm(target, 'target', line);
    if (seen.has(source))
      throw badRequest(
        `Invalid glossary entry: duplicate source term '${source}' (line ${line}).`,
        'invalid_entries',
      );
    seen.add(source);
    out.push([source, target]);
  }
  return out;
}

/** The entries as the real service lists them: TSV, one `source<TAB>target` per line. */
export function glossaryTermsToTsv(terms: GlossaryTerms): string {
  return terms.map(([s, t]) => `${s}\t${t}`).join('\n');
}

/** Entries of `update` merged over `base`: a source term given again takes the new target. */
export function mergeGlossaryTerms(base: GlossaryTerms, update: GlossaryTerms): GlossaryTerms {
  const map = new Map(base);
  for (const [s, t] of update) map.set(s, t);
  return [...map];
}
