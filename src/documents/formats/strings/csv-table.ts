// A CSV file as a table of fields with their places in the text, so that a writer can change one
// cell and keep every other byte: quoting, doubled quotes, line breaks inside quoted fields, the
// delimiter and each row's line ending. csv-parse (RFC 4180) checks the file and names the line of
// what is wrong; the scan here then finds where each field it read is, and both must agree.
import { parse, CsvError } from 'csv-parse/sync';
import { DocumentFormatError } from '../../errors.js';

export interface CsvField {
  /** The field as read: quotes removed, doubled quotes as one. */
  value: string;
  start: number;
  end: number;
  quoted: boolean;
}

export interface CsvRow {
  /** 1-based line of the text the row starts on. */
  line: number;
  fields: CsvField[];
  /** Where the row's last field ends: before its line ending. */
  end: number;
}

/** Delimiters a header row is tried with when the manifest names none. */
const DELIMITERS = [',', ';', '\t', '|'];

/** The delimiter of the first row: the candidate it holds most of outside quotes (a comma when none). */
export function sniffDelimiter(text: string): string {
  let quoted = false;
  const counts = new Map<string, number>();
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && DELIMITERS.includes(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let best = ',';
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d;
  return best;
}

/** The rows of a CSV text; blank lines are not rows. A file that is not CSV names its line. */
export function readCsvTable(text: string, delimiter: string, what: string): CsvRow[] {
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    if (err instanceof CsvError) {
      // csv-parse names the last line of an unclosed quote; a person looks for where it opens.
      if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
        const opened = unclosedQuoteLine(text, delimiter);
        if (opened !== undefined)
          throw new DocumentFormatError(
            `${what} is not valid CSV (line ${opened}): a quoted field is never closed`,
          );
      }
      const line = (err as CsvError & { lines?: number }).lines;
      throw new DocumentFormatError(
        `${what} is not valid CSV${line ? ` (line ${line})` : ''}: ${err.message.replace(/^[^:]*: /, '')}`,
      );
    }
    throw err;
  }
  const rows = scan(text, delimiter);
  const agree =
    rows.length === records.length &&
    rows.every((r, i) => r.fields.map((f) => f.value).join('\0') === (records[i] ?? []).join('\0'));
  if (!agree) throw new DocumentFormatError(`${what} is CSV this reader cannot place field by field`);
  return rows;
}

/** Finds each field of each row (the text is valid CSV: csv-parse read it). */
function scan(text: string, delimiter: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let pos = 0;
  let line = 1;
  const lineBreakAt = (i: number): number =>
    text[i] === '\r' ? (text[i + 1] === '\n' ? 2 : 1) : text[i] === '\n' ? 1 : 0;
  while (pos < text.length) {
    const blank = lineBreakAt(pos);
    if (blank) {
      pos += blank;
      line++;
      continue;
    }
    const row: CsvRow = { line, fields: [], end: pos };
    for (;;) {
      const start = pos;
      let value = '';
      const quoted = text[pos] === '"';
      if (quoted) {
        pos++;
        for (;;) {
          const q = text.indexOf('"', pos);
          const to = q === -1 ? text.length : q;
          const part = text.slice(pos, to);
          value += part;
          line += (part.match(/\r\n|\n|\r/g) ?? []).length;
          pos = to + 1;
          if (text[pos] !== '"') break;
          value += '"';
          pos++;
        }
      } else {
        while (pos < text.length && text[pos] !== delimiter && !lineBreakAt(pos)) pos++;
        value = text.slice(start, pos);
      }
      row.fields.push({ value, start, end: pos, quoted });
      if (text.startsWith(delimiter, pos)) {
        pos += delimiter.length;
        continue;
      }
      row.end = pos;
      const eol = lineBreakAt(pos);
      pos += eol;
      if (eol) line++;
      break;
    }
    rows.push(row);
  }
  return rows;
}

/** The line where the quoted field that runs to the end of the text opens, if one does. */
function unclosedQuoteLine(text: string, delimiter: string): number | undefined {
  let line = 1;
  let opened: number | undefined;
  let fieldStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (opened !== undefined) {
      if (c === '"' && text[i + 1] === '"') i++;
      else if (c === '"') {
        opened = undefined;
        fieldStart = false;
      } else if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
      continue;
    }
    if (c === '"' && fieldStart) opened = line;
    else if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
    fieldStart = c === delimiter || c === '\n' || c === '\r';
  }
  return opened;
}
