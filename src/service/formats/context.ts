import type { SegmentTranslator } from '../engine/translator.js';
import type { DocumentInput, DocumentOutput, EngineLimits } from '../engine/types.js';
import { DocumentFormatError } from '../engine/types.js';

/** Bounds that keep a hostile document from exhausting memory or time. */
export type FormatLimits = EngineLimits;

export const DEFAULT_LIMITS: FormatLimits = {
  maxUncompressedBytes: 1024 * 1024 * 1024,
  maxPartBytes: 256 * 1024 * 1024,
  maxEntries: 20_000,
  maxRatio: 500,
};

export interface FormatContext {
  translator: SegmentTranslator;
  limits: FormatLimits;
  signal?: AbortSignal;
}

/** Translates `input` into `output` (the dispatcher has checked that the file is not empty). */
export type FormatHandler = (
  input: DocumentInput,
  output: DocumentOutput,
  ctx: FormatContext,
) => Promise<void>;

/** Throws the signal's reason when the job was cancelled. */
export function checkAborted(ctx: FormatContext): void {
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

/** A BCP 47 tag of a target code: de -> de, pt-br -> pt-BR, zh-hans -> zh-Hans. */
export function languageTag(code: string): string {
  const [base = '', ...rest] = code.split('-');
  return [
    base.toLowerCase(),
    ...rest.map((p) => (p.length === 4 ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : p.toUpperCase())),
  ].join('-');
}
