// CSV string files (docs/strings/csv.md): a table with a key column, a source text column and a
// column per target language, named by the header row. Each row's source cell is a keyed value;
// the writer fills the target's column (or adds it after the last) and keeps every other byte: the
// other columns, quoting, line breaks inside quoted cells, the delimiter, line endings and a byte
// order mark. Which columns are which comes from the mapping (ReadOptions.formatOptions.csv).
//
// Read with side 'target' and a language (an output read back: the checks, a person's edit), the
// values are that language's column, where the file has it.
import { readFile } from 'node:fs/promises';
import { DocumentFormatError } from '../../errors.js';
import type { CsvOptions } from '../../format-options.js';
import { languageInStyle } from '../../language-tag.js';
import { decodeText } from '../text-encoding.js';
import type { Splice } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { readCsvTable, sniffDelimiter, type CsvField, type CsvRow } from './csv-table.js';
import { stringDocument, type StringEntry } from './keyed.js';

/** The header of a target's column: the pattern with the target's language in it. */
export function targetColumnName(pattern: string, lang: string): string {
  return pattern
    .replaceAll('{lang}', lang)
    .replaceAll('{LANG}', lang.toUpperCase())
    .replaceAll('{lang_bcp47}', languageInStyle(lang, 'bcp47'))
    .replaceAll('{lang_posix}', languageInStyle(lang, 'posix'));
}

/** A cell as the file writes it: quoted when it must be, or when its neighbour was. */
function cell(value: string, delimiter: string, quote: boolean): string {
  const must = value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim();
  return quote || must ? `"${value.replaceAll('"', '""')}"` : value;
}

export const readCsv: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const text = decoded.text;
  const options: CsvOptions = ctx.formatOptions?.csv ?? {};
  const delimiter = options.delimiter ?? sniffDelimiter(text);
  const rows = readCsvTable(text, delimiter, what);
  const [header, ...body] = rows;
  if (!header || body.length === 0) throw new DocumentFormatError(`${what} has no rows below its header`);
  const names = header.fields.map((f) => f.value);
  /** The column of a header name; -1 when the file has none. */
  const columnOf = (name: string): number => {
    const i = names.indexOf(name);
    // Two columns of one name: which one holds the text is anybody's guess.
    if (i !== -1 && names.lastIndexOf(name) !== i)
      throw new DocumentFormatError(
        `${what} names the column "${name}" twice in its header (line ${header.line})`,
      );
    return i;
  };
  const column = (name: string, setting: string): number => {
    const i = columnOf(name);
    if (i === -1)
      throw new DocumentFormatError(
        `${what} has no column "${name}" (${setting}); its header (line ${header.line}) names ${names.map((n) => `"${n}"`).join(', ')}`,
      );
    return i;
  };
  const keyAt = options.keyColumn !== undefined ? column(options.keyColumn, 'csv.key_column') : 0;
  const sourceAt =
    options.sourceColumn !== undefined
      ? column(options.sourceColumn, 'csv.source_column')
      : names.findIndex((_, i) => i !== keyAt);
  if (sourceAt === -1 || sourceAt === keyAt)
    throw new DocumentFormatError(`${what} has no source text column beside its key column`);
  const pattern = options.targetColumn ?? '{lang}';
  const readAt = ctx.side === 'target' && ctx.lang ? columnOf(targetColumnName(pattern, ctx.lang)) : sourceAt;

  const entries: StringEntry[] = [];
  const rowOf = new Map<StringEntry, CsvRow>();
  const lineOfKey = new Map<string, number>();
  for (const row of body) {
    const key = row.fields[keyAt]?.value ?? '';
    const source = row.fields[sourceAt]?.value ?? '';
    if (key === '' && source === '') continue;
    if (key === '') throw new DocumentFormatError(`${what} line ${row.line}: the row has text but no key`);
    const twice = lineOfKey.get(key);
    if (twice !== undefined)
      throw new DocumentFormatError(`${what} line ${row.line}: the key "${key}" is on line ${twice} too`);
    lineOfKey.set(key, row.line);
    const entry: StringEntry = { key, text: (readAt >= 0 ? row.fields[readAt]?.value : undefined) ?? source };
    entries.push(entry);
    rowOf.set(entry, row);
  }

  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    languageSplices: (lang, valueOf) => {
      const name = targetColumnName(pattern, lang);
      const found = columnOf(name);
      const at = found === -1 ? names.length : found;
      if (at === sourceAt || at === keyAt) return [];
      const splices: Splice[] = [];
      /** Writes `value` into the row's cell `at`, adding the delimiters of the cells it lacks. */
      const put = (row: CsvRow, value: string, like: CsvField | undefined): void => {
        const existing = row.fields[at];
        if (existing) {
          if (existing.value !== value)
            splices.push({
              start: existing.start,
              end: existing.end,
              text: cell(value, delimiter, existing.quoted),
            });
          return;
        }
        const missing = delimiter.repeat(at - row.fields.length + 1);
        splices.push({
          start: row.end,
          end: row.end,
          text: missing + cell(value, delimiter, like?.quoted ?? false),
        });
      };
      put(header, name, header.fields[sourceAt]);
      const written = new Set<CsvRow>();
      for (const entry of entries) {
        const row = rowOf.get(entry) as CsvRow;
        written.add(row);
        // A row with no source text leaves what its target cell holds.
        if (entry.text === '' && row.fields[at]) continue;
        put(row, valueOf(entry), row.fields[sourceAt]);
      }
      // A row without text gets the new column's empty cell, so that every row has as many cells.
      if (at === names.length) for (const row of body) if (!written.has(row)) put(row, '', undefined);
      return splices;
    },
  });
};
