// A translation as Markdown source: what the translator wrote must read back as that text, never as
// syntax. A translated `*`, `_`, `[` or backtick would otherwise open emphasis, a link or a code span,
// a `#` or `- ` at the start of a line would make a heading or a list.

/** Where a translated text goes, which decides what must be escaped besides the inline syntax. */
export interface TextPlace {
  /** It starts a line of its block (a paragraph's first text): block syntax must not start there. */
  lineStart?: boolean;
  /** It is in a table cell: a `|` would end the cell. */
  cell?: boolean;
  /** It ends an ATX heading: a trailing run of `#` would be read as the closing sequence. */
  headingEnd?: boolean;
  /** It is in an MDX file: a `{` would open an expression (a `<`, JSX, is escaped everywhere). */
  mdx?: boolean;
}

/** Inline syntax characters, escaped wherever a translation goes. */
const INLINE_SYNTAX = /[\\`*_[\]<~]/g;
/** An `&` that would start a character reference (`&amp;`, `&#169;`). */
export const ENTITY_START = /&(?=#?[a-z0-9]+;)/gi;
/** Block syntax at the start of a line: ATX heading, block quote, list bullet, setext underline. */
const BLOCK_START = /^(?:#{1,6}(?=[ \t]|$)|[>+\-=])/;
/** What starts an MDX import or export statement. */
const MDX_ESM_START = /^(?:import|export)(?=[ \t])/;
/** An ordered list marker at the start of a line: "2024. " or "3) ". */
const ORDERED_START = /^(\d{1,9})([.)])(?=[ \t]|$)/;

/**
 * The Markdown source for `text` at `place`. A line break in a translation becomes a space: a soft
 * line break inside a paragraph is a space when it is shown, and a new line could start block syntax
 * or end a table cell.
 */
export function escapeMarkdownText(text: string, place: TextPlace = {}): string {
  let out = joinSoftBreaks(text).replace(INLINE_SYNTAX, '\\$&').replace(ENTITY_START, '\\&');
  if (place.cell) out = out.replace(/\|/g, '\\|');
  if (place.mdx) out = out.replace(/[{}]/g, '\\$&');
  if (place.lineStart) {
    out = out.replace(/^[ \t]+/, '');
    out = BLOCK_START.test(out) ? `\\${out}` : out.replace(ORDERED_START, '$1\\$2');
    // MDX reads a block starting with `import ` or `export ` as JavaScript: its first letter as a reference.
    if (place.mdx) out = out.replace(MDX_ESM_START, (m) => `&#${m.charCodeAt(0)};${m.slice(1)}`);
  }
  if (place.headingEnd)
    out = out.replace(/(^|[ \t])(#+)([ \t]*)$/, (_m, a, h: string, b) => `${a}${h.replace(/#/g, '\\#')}${b}`);
  return out;
}

/** A piece's text as the reader gives it: the parsed text with each soft line break as one space. */
export function joinSoftBreaks(text: string): string {
  return text.replace(/[ \t]*(?:\r\n|\n|\r)[ \t]*/g, ' ');
}
