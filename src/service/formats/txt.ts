// Plain text: each line is a segment; line endings, encoding and BOM are kept. Text in a legacy
// single-byte encoding that cannot hold the translation is written as UTF-8 with a BOM instead.
import { readFile, writeFile } from 'node:fs/promises';
import type { FormatHandler } from './context.js';
import { checkAborted } from './context.js';
import { decodeText, encodeTranslated } from './text-encoding.js';

export const translateTxt: FormatHandler = async (input, output, ctx) => {
  const decoded = decodeText(await readFile(input.path), 'the .txt file');
  const parts = decoded.text.split(/(\r\n|\n|\r)/);
  for (let i = 0; i < parts.length; i += 2) {
    if (i % 2000 === 0) checkAborted(ctx);
    parts[i] = ctx.translator.translateText(parts[i] as string);
  }
  await writeFile(output.path, encodeTranslated(parts.join(''), decoded));
};
