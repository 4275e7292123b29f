// Settings of a format that its files do not carry themselves, given by the manifest's mapping.

/**
 * A CSV string file's columns (docs/strings/csv.md): which is the key, which the source text, and
 * which each target language's. Columns are named by their header (first row).
 */
export interface CsvOptions {
  /** The key column's header; default the first column. */
  keyColumn?: string;
  /** The source text column's header; default the first column after the key. */
  sourceColumn?: string;
  /**
   * A target's column: a pattern whose `{lang}` (de, pt-br), `{LANG}` (DE, PT-BR), `{lang_bcp47}`
   * (pt-BR) or `{lang_posix}` (pt_BR) is the target language; default `{lang}`. A column not in
   * the file is added after the last.
   */
  targetColumn?: string;
  /** The field delimiter; default the one of `,`, `;`, tab and `|` the header row uses most. */
  delimiter?: string;
}

/**
 * How to read files whose content does not say it all: per format, from the mapping that lists
 * them (src/manifest formatOptionsOf). Carried whole by every caller of openDocument that reads a
 * mapping's file, so a format's settings reach every reader of it.
 */
export interface FormatOptions {
  csv?: CsvOptions;
}
