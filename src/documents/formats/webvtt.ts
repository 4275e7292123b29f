// WebVTT subtitles (.vtt, W3C WebVTT), on the segment path only (the document service has no type
// for it): each cue text line is a segment whose markup (<b>, <i>, <u>, <v Speaker>, <c.class>,
// <lang fr>, <ruby>/<rt>, karaoke timestamps <00:01.500>) are code pieces and whose character
// references (&amp;, &lt;, &nbsp;) are read as the characters they name. The header, cue
// identifiers, timings and settings, NOTE, STYLE and REGION blocks, blank lines, line endings and
// encoding stay byte for byte (docs/webvtt.md).
//
// Written by hand, like SubRip's: the npm WebVTT parsers (node-webvtt, vtt.js) keep no positions,
// and the writer puts each translated line back in place of its source line.
import { readFile, writeFile } from 'node:fs/promises';
import { DocumentFormatError } from '../errors.js';
import type { Piece, Segment } from '../segment.js';
import { decodeText, encodeTranslated } from './text-encoding.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';

const HEADER = /^WEBVTT(?:[ \t].*)?$/;
const TIME = String.raw`(?:\d{2,}:)?[0-5]\d:[0-5]\d\.\d{3}`;
const TIMING = new RegExp(String.raw`^${TIME}[ \t]+-->[ \t]+${TIME}(?:[ \t].*)?$`);
/** Blocks that are not cues: kept whole (a NOTE may be followed by text on its first line). */
const KEPT_BLOCK = /^(?:NOTE|STYLE|REGION)(?:[ \t].*)?$/;
/** A cue's markup: a tag or a karaoke timestamp (never translated). */
const MARKUP = /<[^<>\r\n]*>/g;

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  nbsp: '\u00A0',
  lrm: '\u200E',
  rlm: '\u200F',
};

/** Character references of cue text, as the characters they name (an unknown one stays as written). */
function decodeReferences(text: string): string {
  return text.replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-zA-Z]+));/g, (m, dec, hex, name) => {
    if (dec !== undefined || hex !== undefined) {
      const code = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED[name as string] ?? m;
  });
}

/**
 * A translated text as cue text: `&`, `<` and `>` as references (a translation's `<b>` or `-->` is
 * text, not markup or a timing); its line breaks as the file's, without blank lines (a blank line
 * would end the cue and make its next line a block of its own).
 */
function encodeCueText(text: string, newline: string): string {
  const escaped = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return escaped
    .split(/\r\n|\n|\r/)
    .filter((line, i, all) => all.length === 1 || line.trim() !== '')
    .join(newline);
}

/** The pieces of a cue text line: markup as code, the text between decoded. */
export function cuePieces(line: string): Piece[] {
  const pieces: Piece[] = [];
  let pos = 0;
  for (const m of line.matchAll(MARKUP)) {
    if (m.index > pos) pieces.push({ text: decodeReferences(line.slice(pos, m.index)) });
    pieces.push({ text: m[0], code: true });
    pos = m.index + m[0].length;
  }
  if (pos < line.length) pieces.push({ text: decodeReferences(line.slice(pos)) });
  return pieces;
}

export interface VttCue {
  /** Index into the line array of its identifier line, when it has one. */
  identifier?: number;
  /** Index into the line array of its timing line (timings and settings). */
  timing: number;
  /** Index into the line array of each text line. */
  textLines: number[];
}

/** A block that is not a cue, kept whole: its kind and the index of each of its lines. */
export interface VttBlock {
  kind: 'NOTE' | 'STYLE' | 'REGION';
  lines: number[];
}

export interface ParsedVtt {
  /** The text's lines at even indexes, each followed by its line ending. */
  parts: string[];
  /** Index into the line array of each header line (the `WEBVTT` line first). */
  header: number[];
  /** NOTE, STYLE and REGION blocks, in file order. */
  blocks: VttBlock[];
  cues: VttCue[];
}

const invalid = (why: string): DocumentFormatError =>
  new DocumentFormatError(`not a valid WebVTT (.vtt) file: ${why}`);

/** Splits WebVTT text into lines (separators kept at odd indexes) and finds its header, blocks and cues. */
export function parseVtt(text: string): ParsedVtt {
  const parts = text.split(/(\r\n|\n|\r)/);
  const line = (k: number): string => parts[k] ?? '';
  const blank = (k: number): boolean => line(k).trim() === '';
  if (!HEADER.test(line(0))) throw invalid('line 1 is not "WEBVTT"');
  let i = 0;
  const header: number[] = [];
  for (; i < parts.length && !blank(i); i += 2) header.push(i);
  const blocks: VttBlock[] = [];
  const cues: VttCue[] = [];
  while (i < parts.length) {
    if (blank(i)) {
      i += 2;
      continue;
    }
    const lineNo = i / 2 + 1;
    if (KEPT_BLOCK.test(line(i))) {
      const block: VttBlock = { kind: line(i).split(/[ \t]/, 1)[0] as VttBlock['kind'], lines: [] };
      for (; i < parts.length && !blank(i); i += 2) block.lines.push(i);
      blocks.push(block);
      continue;
    }
    const timing = line(i).includes('-->') ? i : line(i + 2).includes('-->') ? i + 2 : -1;
    if (timing === -1)
      throw invalid(
        `line ${lineNo} is neither a cue identifier, a cue timing nor a NOTE, STYLE or REGION block`,
      );
    if (!TIMING.test(line(timing).trim()))
      throw invalid(`line ${timing / 2 + 1} is not a cue timing such as "00:01.000 --> 00:04.000"`);
    const cue: VttCue = { ...(timing > i ? { identifier: i } : {}), timing, textLines: [] };
    i = timing + 2;
    while (i < parts.length && !blank(i)) {
      cue.textLines.push(i);
      i += 2;
    }
    cues.push(cue);
  }
  return { parts, header, blocks, cues };
}

export const readVtt: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const { parts, cues } = parseVtt(decoded.text);
  const found = new SegmentList();
  const lines: Array<{ segment: Segment; at: number }> = [];
  cues.forEach((cue, c) => {
    for (const k of cue.textLines) {
      const segment = found.add('subtitle', `cue ${c + 1}`, cuePieces(parts[k] as string));
      if (segment) lines.push({ segment, at: k });
    }
  });
  const newline = parts[1] ?? '\n';
  return openedDocument({
    format: ctx.format,
    keepsLayout: true,
    outputFormats: [ctx.format],
    segments: found.segments,
    async write(translationOf, out) {
      const written = [...parts];
      for (const { segment, at } of lines) {
        const texts = textsOut(segment, segment.pieces, translationOf);
        // A line translated as it was keeps its source bytes (its references as written).
        if (texts.every((t, i) => t === segment.pieces[i]?.text)) continue;
        const text = segment.pieces
          .map((p, i) => (p.code ? p.text : encodeCueText(texts[i] as string, newline)))
          .join('');
        written[at] = text;
        // A line translated to nothing goes with its line ending: a blank line would end the cue.
        if (text.trim() === '') written[at + 1] = '';
      }
      await writeFile(out.path, encodeTranslated(written.join(''), decoded));
    },
  });
};
