import { readFile } from 'node:fs/promises';
import { parseSrt } from '../formats/srt.js';
import { decodeText } from '../formats/text-encoding.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// Plain text and subtitles: the text read, not the bytes. The encoding and a byte order mark are
// not content (the text read is the same), nor is the line-ending convention (a sync client or git
// turning CRLF into LF changes no word). docs/content-digest.md has the table.

/** Lines of a text whatever its line endings. */
const lines = (text: string): string[] => text.split(/\r\n|\n|\r/);

/** Plain text: its lines (each a unit for `plan --why`). */
export async function digestTxt(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .txt file');
  const part = new PartHasher('text');
  lines(text).forEach((line, i) => {
    part.startUnit(`line ${i + 1}`);
    part.add(line, true);
    part.endUnit();
  });
  return digestOf('txt', [part.finish()]);
}

/** SubRip: every cue's number, timing and text lines (each cue a unit); blank lines between are layout. */
export async function digestSrt(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .srt file');
  const normal = lines(text).join('\n');
  const { parts, cues } = parseSrt(normal);
  const part = new PartHasher('subtitles');
  cues.forEach((cue, i) => {
    part.startUnit(`cue ${i + 1}`);
    const first = cue.textLines[0] ?? 0;
    // The cue's number and timing lines: the non-blank lines just before its text.
    for (let k = Math.max(0, first - 4); k < first; k += 2)
      if ((parts[k] ?? '').trim() !== '') part.add((parts[k] as string).trim());
    for (const k of cue.textLines) part.add(parts[k] as string, true);
    part.endUnit();
  });
  return digestOf('srt', [part.finish()]);
}
