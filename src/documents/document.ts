// What a format reader opens: the segments of one document and the writer that puts translated
// segments back into everything else the document holds (its skeleton).
import type { FormatOptions } from './format-options.js';
import type { ReadLimits } from './limits.js';
import type { Segment } from './segment.js';

/**
 * The translation of a segment: one text per piece of the segment, in order (code pieces are
 * written as they were whatever is given for them); undefined keeps the source text.
 */
export type TranslationOf = (segment: Segment) => readonly string[] | undefined;

export interface ReadOptions {
  /** Lower-case format (file extension without the dot): docx, txt, ... */
  format: string;
  /** Bounds against hostile files (zip bombs); defaults in limits.ts. */
  limits?: Partial<ReadLimits>;
  signal?: AbortSignal;
  /**
   * Bilingual formats (XLIFF) hold the source and its translation: 'target' reads the translation a
   * translated document carries (a unit without a target reads as its source). Other formats have
   * one text and ignore it. Default 'source'.
   */
  side?: 'source' | 'target';
  /**
   * With side 'target': the language to read of a file that holds several (an Apple String
   * Catalog: its localizations in that language). Other formats ignore it.
   */
  lang?: string;
  /** The mapping's settings of formats that need them (a CSV file's columns). */
  formatOptions?: FormatOptions;
}

export interface WriteTarget {
  path: string;
  /** Lower-case format to write: the source's, or one of `outputFormats` (doc -> docx, pdf -> docx). */
  format: string;
}

export interface WriteOptions {
  /** Lower-case language code of the translation ("de", "pt-br"): set where the format records a language. */
  targetLang: string;
  signal?: AbortSignal;
}

export interface OpenedDocument {
  /** Lower-case format it was read as. */
  readonly format: string;
  /**
   * True when write() keeps every byte that is not translated text (txt, srt, html, xliff, docx,
   * pptx, xlsx; images, which it copies); false when it builds a new document from the text (doc,
   * pdf: layout simplified).
   */
  readonly keepsLayout: boolean;
  /** Formats write() can produce. */
  readonly outputFormats: readonly string[];
  /** The translatable segments in document order (segments with no text to translate are not listed). */
  segments(): AsyncIterable<Segment>;
  /** Writes the document with each segment's translation in place of its text. */
  write(translationOf: TranslationOf, out: WriteTarget, opts: WriteOptions): Promise<void>;
}
