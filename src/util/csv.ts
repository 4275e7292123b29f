// CSV (RFC 4180) and TSV text split into records with their line numbers, for files people edit.

export interface CsvRecord {
  fields: string[];
  line: number;
  endLine: number;
}

/**
 * Split CSV text into records of fields (RFC 4180: quoted fields may hold commas, doubled quotes
 * and line breaks), each with its first and last line (1-based). Blank lines are skipped.
 * `unclosedAt`: the line of a record whose quoted field never ends.
 */
export function csvRecords(text: string): { records: CsvRecord[]; unclosedAt?: number } {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let line = 1;
  let startLine = 1;
  const endRecord = (): void => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '' || wasQuoted)
      records.push({ fields, line: startLine, endLine: line });
    fields = [];
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      startLine = line;
    } else field += ch;
  }
  if (field !== '' || fields.length > 0 || wasQuoted) endRecord();
  return quoted ? { records, unclosedAt: startLine } : { records };
}

/** Tab-separated lines as records (no quoting), blank lines skipped. */
export function tsvRecords(text: string): CsvRecord[] {
  return text
    .split(/\r?\n/)
    .map((l, i) => ({ fields: l.split('\t'), line: i + 1, endLine: i + 1 }))
    .filter((r) => !(r.fields.length === 1 && r.fields[0] === ''));
}
