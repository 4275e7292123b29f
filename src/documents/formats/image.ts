// Images (beta): no OCR is available offline, so a PNG or JPEG has no segments and is written back
// unchanged. A file whose content is not the image its name says is rejected.
import { copyFile, open } from 'node:fs/promises';
import { CONTENT_KINDS } from '../content-kinds.js';
import { DocumentFormatError } from '../errors.js';
import { openedDocument, type FormatReader } from './reader.js';

const SIGNATURES: Record<string, readonly number[]> = {
  png: CONTENT_KINDS.png.bytes,
  jpg: CONTENT_KINDS.jpeg.bytes,
  jpeg: CONTENT_KINDS.jpeg.bytes,
};

export const readImage: FormatReader = async (path, ctx) => {
  const signature = SIGNATURES[ctx.format] ?? [];
  const head = Buffer.alloc(signature.length);
  const fh = await open(path, 'r');
  try {
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  if (!signature.every((b, i) => head[i] === b)) {
    throw new DocumentFormatError(
      `not a valid ${ctx.format.toUpperCase()} image: the file does not start with its signature`,
    );
  }
  return openedDocument({
    format: ctx.format,
    keepsLayout: true,
    outputFormats: [ctx.format],
    segments: [],
    write: (_translationOf, out) => copyFile(path, out.path),
  });
};
