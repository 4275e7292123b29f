// Plain text: each line is a segment; line endings, encoding and BOM are kept. Text in a legacy
// single-byte encoding that cannot hold the translation is written as UTF-8 with a BOM instead.
import { readFile } from 'node:fs/promises';
import { checkAborted } from '../limits.js';
import { decodeText } from './text-encoding.js';
import { SegmentList, type FormatReader } from './reader.js';
import { linesDocument } from './lines.js';

export const readTxt: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), 'the .txt file');
  // Lines at even indexes, their line endings at odd ones.
  const parts = decoded.text.split(/(\r\n|\n|\r)/);
  const found = new SegmentList();
  const lineOf: number[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    if (i % 2000 === 0) checkAborted(ctx);
    if (found.add('line', `line ${i / 2 + 1}`, [{ text: parts[i] as string }])) lineOf.push(i);
  }
  return linesDocument('txt', decoded, parts, found, lineOf);
};
