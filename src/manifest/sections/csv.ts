import { z } from 'zod';
import type { FormatOptions } from '../../documents/format-options.js';
import { formatOptionsKey } from '../../documents/format-registry.js';

// `csv:` of a mapping: which columns of its CSV string files are the key, the source text and each
// target's translation (docs/strings/csv.md). The document layer reads them as FormatOptions.

const column = (what: string) => z.string().min(1, `name the ${what} column by its header`);

export const csvSchema = z.strictObject({
  key_column: column('key').optional().describe('Header of the key column; default the first column.'),
  source_column: column('source')
    .optional()
    .describe('Header of the source text column; default the first column after the key.'),
  target_column: column('target')
    .optional()
    .describe(
      "Header of a target's column, with {lang}, {LANG}, {lang_bcp47} or {lang_posix} for its language; default {lang}. Added after the last column when the file has none.",
    ),
  delimiter: z
    .enum([',', ';', '\t', '|'])
    .optional()
    .describe("Field delimiter: ',', ';', a tab or '|'; default the one the header row uses most."),
});

export type CsvSettings = z.infer<typeof csvSchema>;

/** The settings the document layer reads a file of extension `ext` of this mapping with, if any. */
export function formatOptionsOf(
  mapping: { csv?: CsvSettings | undefined },
  ext: string,
): FormatOptions | undefined {
  const csv = mapping.csv;
  // The registry says which files take these settings: a mapping's other files are read as they are.
  if (formatOptionsKey(ext) !== 'csv' || !csv) return undefined;
  return {
    csv: {
      ...(csv.key_column !== undefined ? { keyColumn: csv.key_column } : {}),
      ...(csv.source_column !== undefined ? { sourceColumn: csv.source_column } : {}),
      ...(csv.target_column !== undefined ? { targetColumn: csv.target_column } : {}),
      ...(csv.delimiter !== undefined ? { delimiter: csv.delimiter } : {}),
    },
  };
}
