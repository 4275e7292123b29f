// Text formats whose segments are whole lines (txt, srt): the writer puts each translated line in
// place of its source line and encodes the text as the source was.
import { writeFile } from 'node:fs/promises';
import type { OpenedDocument } from '../document.js';
import { encodeTranslated, type DecodedText } from './text-encoding.js';
import { openedDocument, textsOut, type SegmentList } from './reader.js';

/**
 * The document of a line-based text: `parts` are its lines (even indexes) and line endings (odd),
 * `lineOf[k]` the index in `parts` of segment k.
 */
export function linesDocument(
  format: string,
  decoded: DecodedText,
  parts: readonly string[],
  found: SegmentList,
  lineOf: readonly number[],
): OpenedDocument {
  return openedDocument({
    format,
    keepsLayout: true,
    outputFormats: [format],
    segments: found.segments,
    async write(translationOf, out) {
      const lines = [...parts];
      found.segments.forEach((s, k) => {
        lines[lineOf[k] as number] = textsOut(s, s.pieces, translationOf).join('');
      });
      await writeFile(out.path, encodeTranslated(lines.join(''), decoded));
    },
  });
}
