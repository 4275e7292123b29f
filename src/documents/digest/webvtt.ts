import { readFile } from 'node:fs/promises';
import { cuePieces, parseVtt } from '../formats/webvtt.js';
import { decodeText } from '../formats/text-encoding.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// WebVTT: what a player shows and how, not how the file is laid out. A cue's text is rendered with
// its white space collapsed (CSS `white-space: pre-line`), so runs of spaces and trailing spaces are
// not content, nor is how a character is written (`&amp;` or `&#38;`). Timings and settings are read
// as words, so the spaces between them are layout. NOTE blocks are comments no player shows. Line
// endings, blank lines between blocks, the encoding and a byte order mark are layout too. The
// header, cue identifiers, timings, settings, markup, STYLE and REGION blocks are content. Each cue,
// style and region block is a unit for `plan --why`. docs/content-digest.md has the table.

/** White space a player collapses: not a no-break space (U+00A0 is kept as written). */
const SPACES = /[ \t\f]+/g;
/** A line read as words: its spaces and tabs as one space, none at either end. */
const words = (line: string): string => line.replace(SPACES, ' ').replace(/^ | $/g, '');

export async function digestVtt(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .vtt file');
  const { parts, header, blocks, cues } = parseVtt(text);
  const line = (k: number): string => parts[k] as string;
  const part = new PartHasher('subtitles');
  for (const k of header) part.add(line(k).trimEnd());
  const counts = { STYLE: 0, REGION: 0 };
  for (const block of blocks) {
    if (block.kind === 'NOTE') continue;
    const [first = 0] = block.lines;
    part.startUnit(`${block.kind.toLowerCase()} block ${++counts[block.kind]}`, first / 2 + 1);
    for (const k of block.lines) part.add(block.kind === 'REGION' ? words(line(k)) : line(k).trimEnd());
    part.endUnit();
  }
  cues.forEach((cue, c) => {
    part.startUnit(`cue ${c + 1}`, (cue.identifier ?? cue.timing) / 2 + 1);
    part.add(cue.identifier === undefined ? '' : line(cue.identifier).trimEnd());
    part.add(words(line(cue.timing)));
    for (const k of cue.textLines) {
      for (const p of cuePieces(words(line(k))))
        part.add(p.code ? `code ${p.text}` : `text ${p.text.replace(SPACES, ' ')}`, !p.code);
      part.add('end of line');
    }
    part.endUnit();
  });
  return digestOf('webvtt', [part.finish()]);
}
