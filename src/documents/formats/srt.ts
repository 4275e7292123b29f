// SubRip subtitles: only cue text lines are translated; cue numbers, timings, blank lines, line
// endings and encoding stay byte-identical.
import { readFile } from 'node:fs/promises';
import { DocumentFormatError } from '../errors.js';
import { decodeText } from './text-encoding.js';
import { SegmentList, type FormatReader } from './reader.js';
import { linesDocument } from './lines.js';

const TIMING = /^\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}/;

export interface SrtCue {
  /** Index into the line array of each text line. */
  textLines: number[];
}

/** Splits SubRip text into lines (separators kept at odd indexes) and finds each cue's text lines. */
export function parseSrt(text: string): { parts: string[]; cues: SrtCue[] } {
  const parts = text.split(/(\r\n|\n|\r)/);
  const cues: SrtCue[] = [];
  let i = 0;
  const line = (k: number): string => parts[k] ?? '';
  while (i < parts.length) {
    if (line(i).trim() === '') {
      i += 2;
      continue;
    }
    const lineNo = i / 2 + 1;
    if (/^\s*\d+\s*$/.test(line(i)) && TIMING.test(line(i + 2))) i += 4;
    else if (TIMING.test(line(i))) i += 2;
    else
      throw new DocumentFormatError(
        `not a valid SubRip (.srt) file: line ${lineNo} is neither a cue number nor a timing`,
      );
    const cue: SrtCue = { textLines: [] };
    while (i < parts.length && line(i).trim() !== '') {
      cue.textLines.push(i);
      i += 2;
    }
    cues.push(cue);
  }
  if (cues.length === 0) throw new DocumentFormatError('not a valid SubRip (.srt) file: it has no cues');
  return { parts, cues };
}

export const readSrt: FormatReader = async (path) => {
  const decoded = decodeText(await readFile(path), 'the .srt file');
  const { parts, cues } = parseSrt(decoded.text);
  const found = new SegmentList();
  const lineOf: number[] = [];
  cues.forEach((cue, c) => {
    for (const k of cue.textLines)
      if (found.add('subtitle', `cue ${c + 1}`, [{ text: parts[k] as string }])) lineOf.push(k);
  });
  return linesDocument('srt', decoded, parts, found, lineOf);
};
