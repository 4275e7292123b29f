// One dispatcher for every document format: picks the handler by input extension.
import { stat } from 'node:fs/promises';
import type { DocumentInput, DocumentOutput } from '../engine/types.js';
import { DocumentFormatError } from '../engine/types.js';
import type { FormatContext, FormatHandler } from './context.js';
import { translateTxt } from './txt.js';
import { translateHtml } from './html.js';
import { translateSrt } from './srt.js';
import { translateImage } from './image.js';
import { translateXliff } from './xliff.js';
import { translateDocx, translatePptx, translateXlsx } from './ooxml.js';

/** A handler whose module (and its heavy libraries: pdf.js, pdf-lib, word-extractor) loads on first use. */
function lazy(load: () => Promise<FormatHandler>): FormatHandler {
  let handler: Promise<FormatHandler> | undefined;
  return async (input, output, ctx) => (await (handler ??= load()))(input, output, ctx);
}

const HANDLERS: Record<string, FormatHandler> = {
  txt: translateTxt,
  htm: translateHtml,
  html: translateHtml,
  srt: translateSrt,
  doc: lazy(async () => (await import('./doc.js')).translateDoc),
  docx: translateDocx,
  pdf: lazy(async () => (await import('./pdf.js')).translatePdf),
  pptx: translatePptx,
  xlsx: translateXlsx,
  xlf: translateXliff,
  xliff: translateXliff,
  png: translateImage,
  jpg: translateImage,
  jpeg: translateImage,
};

/** Extensions the engine translates. */
export function supportedExtensions(): string[] {
  return Object.keys(HANDLERS);
}

/** Translates one document; DocumentFormatError for input that cannot be translated. */
export async function translateFile(
  input: DocumentInput,
  output: DocumentOutput,
  ctx: FormatContext,
): Promise<void> {
  const ext = input.ext.toLowerCase();
  const handler = HANDLERS[ext];
  if (!handler) throw new DocumentFormatError(`.${ext} documents are not supported`);
  const info = await stat(input.path);
  if (info.size === 0)
    throw new DocumentFormatError(`the file is empty: an empty .${ext} is not a valid document`);
  await handler({ ...input, ext }, { ...output, ext: output.ext.toLowerCase() }, ctx);
}

export type { FormatContext, FormatHandler, FormatLimits } from './context.js';
export { DEFAULT_LIMITS } from './context.js';
