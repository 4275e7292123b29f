// Link, image and reference-definition titles (`[text](url "Title")`, `![alt](a.png 'Title')`,
// `[id]: url (Title)`): text a reader sees as a tooltip, translated as a segment of its own. The
// parser gives a title's text, not its place: the place is found by scanning back from the end of
// the link for its delimiters, and a scan that disagrees with the parsed text leaves the title alone.
import { ENTITY_START, joinSoftBreaks } from './markdown-escape.js';

export interface TitleText {
  /** The title as a reader sees it (soft line breaks as spaces). */
  text: string;
  /** The source between its delimiters. */
  start: number;
  end: number;
  line: number;
  /** Its closing delimiter: `"`, `'` or `)`. */
  delimiter: string;
}

/** True when the character at `i` is escaped (an odd run of backslashes before it). */
function escaped(source: string, i: number): boolean {
  let n = 0;
  while (i - n - 1 >= 0 && source[i - n - 1] === '\\') n++;
  return n % 2 === 1;
}

const REFERENCES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** A title's source as the parser reads it: backslash escapes and the common character references. */
function titleValue(raw: string): string {
  return raw.replace(/\\([!-/:-@[-`{-~])|&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-z]+);/g, (m, punct, ref) => {
    if (punct) return punct as string;
    const r = ref as string;
    if (r[0] !== '#') return REFERENCES[r] ?? m;
    const code = r[1] === 'x' || r[1] === 'X' ? parseInt(r.slice(2), 16) : parseInt(r.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

/**
 * The title of a link, image or definition spanning [start, end) of `source` (`inline`: it ends with
 * the `)` of `(url "title")`), or undefined when it has none with words or its place is not certain.
 */
export function titleOf(
  source: string,
  title: string | null | undefined,
  start: number,
  end: number,
  line: number,
  inline: boolean,
): TitleText | undefined {
  if (!title || !/\p{L}/u.test(title)) return undefined;
  let i = end;
  if (inline) {
    if (source[i - 1] !== ')') return undefined;
    i--;
  }
  while (i > start && /\s/.test(source[i - 1] as string)) i--;
  const delimiter = source[i - 1] as string;
  if (delimiter !== '"' && delimiter !== "'" && delimiter !== ')') return undefined;
  const opener = delimiter === ')' ? '(' : delimiter;
  const contentEnd = i - 1;
  let j = contentEnd - 1;
  while (j > start && !(source[j] === opener && !escaped(source, j))) j--;
  if (j <= start || titleValue(source.slice(j + 1, contentEnd)) !== title) return undefined;
  const lines = source.slice(start, j + 1).match(/\r\n|\n|\r/g)?.length ?? 0;
  return { text: joinSoftBreaks(title), start: j + 1, end: contentEnd, line: line + lines, delimiter };
}

/**
 * A translated title as source between its delimiters: it reads back as the translation and never
 * ends the title early (its delimiter, backslashes and `&` of a character reference are escaped; a
 * line break, which could end the paragraph, becomes a space).
 */
export function escapeMarkdownTitle(text: string, delimiter: string): string {
  const close = delimiter === ')' ? /[()]/g : delimiter === '"' ? /"/g : /'/g;
  return joinSoftBreaks(text).replace(/\\/g, '\\\\').replace(ENTITY_START, '\\&').replace(close, '\\$&');
}
