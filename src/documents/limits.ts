// Bounds on reading a document, and the two guards every reader shares: cancellation and a time
// limit for libraries that parse a whole file at once (pdf.js, word-extractor).
import { DocumentFormatError } from './errors.js';
import type { FormatOptions } from './format-options.js';

/** Bounds that keep a hostile document from exhausting memory or time. */
export interface ReadLimits {
  /** Total uncompressed bytes of a docx/pptx/xlsx package (declared and actual). */
  maxUncompressedBytes: number;
  /** Uncompressed bytes of one XML part read into memory. */
  maxPartBytes: number;
  /** Entries in a zip package. */
  maxEntries: number;
  /** Uncompressed/compressed ratio above which a large entry counts as a zip bomb. */
  maxRatio: number;
}

export const DEFAULT_LIMITS: ReadLimits = {
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxPartBytes: 256 * 1024 * 1024,
  maxEntries: 20_000,
  maxRatio: 500,
};

/** What a reader or writer is given besides the file: its bounds and a way to be cancelled. */
export interface ReadContext {
  limits: ReadLimits;
  signal?: AbortSignal;
  /** Which text of a bilingual format to read (ReadOptions.side). */
  side?: 'source' | 'target';
  /** The language to read of a file that holds several (ReadOptions.lang). */
  lang?: string;
  /** The mapping's settings of formats that need them (ReadOptions.formatOptions). */
  formatOptions?: FormatOptions;
}

/** Throws the signal's reason when the work was cancelled. */
export function checkAborted(ctx: { signal?: AbortSignal | undefined }): void {
  if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error('aborted');
}

/** Rejects with a DocumentFormatError when `work` has not settled after `ms` (a hostile file). */
export async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DocumentFormatError(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
