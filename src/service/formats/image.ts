// Images (beta): no OCR is available offline, so a PNG or JPEG comes back unchanged and is billed
// 0 characters. A file whose content is not the image its name says is rejected.
import { copyFile, open } from 'node:fs/promises';
import type { FormatHandler } from './context.js';
import { DocumentFormatError } from '../engine/types.js';

const SIGNATURES: Record<string, number[]> = {
  png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  jpg: [0xff, 0xd8, 0xff],
  jpeg: [0xff, 0xd8, 0xff],
};

export const translateImage: FormatHandler = async (input, output) => {
  const signature = SIGNATURES[input.ext] ?? [];
  const head = Buffer.alloc(signature.length);
  const fh = await open(input.path, 'r');
  try {
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  if (!signature.every((b, i) => head[i] === b)) {
    throw new DocumentFormatError(
      `not a valid ${input.ext.toUpperCase()} image: the file does not start with its signature`,
    );
  }
  await copyFile(input.path, output.path);
};
