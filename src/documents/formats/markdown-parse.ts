// Markdown parsed to an mdast tree with source offsets (the unified/remark family: CommonMark, GitHub's
// tables, strikethrough, task lists, autolinks and footnotes, and YAML/TOML front matter). The reader
// and the content digest parse the same way, so both see the same document. MDX is the same parse
// with remark-mdx: JSX elements, `{expressions}` and import/export become nodes of their own.
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkMdx from 'remark-mdx';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { DocumentFormatError } from '../errors.js';
import { linearAttention } from './markdown-attention.js';

const processor = unified()
  .use(remarkParse)
  .use(function linearEmphasis() {
    // Emphasis resolved in linear time (./markdown-attention.ts): the same tree as micromark's own.
    const data = this.data();
    (data.micromarkExtensions ??= []).push(linearAttention);
  })
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml'])
  .freeze();
const mdxProcessor = processor().use(remarkMdx).freeze();

/**
 * Container nesting (block quotes, list items) a document may have. micromark's time grows with the
 * cube of list nesting (200 levels: seconds; 800: a minute) and deep nesting exhausts the call stack,
 * while real documents nest a few levels.
 */
export const MAX_NESTING = 100;

/** Upper estimate of a line's container depth: its `>` marks plus two columns of indentation a level. */
function nestingOf(line: string): number {
  const prefix = /^[ \t>]*/.exec(line)?.[0] ?? '';
  if (prefix.length < MAX_NESTING) return 0;
  let quotes = 0;
  let columns = 0;
  for (const c of prefix) {
    if (c === '>') quotes++;
    else columns += c === '\t' ? 4 : 1;
  }
  return quotes + Math.floor(columns / 2);
}

/** The line (from 1) of a text nested deeper than MAX_NESTING, or 0. */
function tooDeepLine(lines: readonly string[]): number {
  const i = lines.findIndex((l) => nestingOf(l) > MAX_NESTING);
  return i + 1;
}

/**
 * Inline nesting (emphasis, strikethrough, link and image brackets) a paragraph may have. micromark
 * resolves delimiters in time that grows with the square of the openers left open (3,200 levels of
 * emphasis: over a minute), while real text nests a few levels.
 */
export const MAX_INLINE_NESTING = 100;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** Escapes, and the delimiter runs and brackets that may open or close inline nesting. */
const INLINE = /\\[\s\S]|\*+|_+|~+|\[|\]/g;

/**
 * The line with its code spans as letters (their delimiters are text). A backtick run opens a span
 * closed by the next run of the same length; found in one pass each way, so a line of unmatched
 * runs stays linear.
 */
function withoutCodeSpans(line: string): string {
  const runs = [...line.matchAll(/`+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  if (runs.length < 2) return line;
  const next: number[] = [];
  const lastOfLength = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i] as { start: number; end: number };
    next[i] = lastOfLength.get(r.end - r.start) ?? -1;
    lastOfLength.set(r.end - r.start, i);
  }
  let out = '';
  let pos = 0;
  for (let i = 0; i < runs.length; i++) {
    const close = next[i] as number;
    if (close === -1) continue;
    const from = (runs[i] as { start: number }).start;
    const to = (runs[close] as { end: number }).end;
    out += line.slice(pos, from) + 'x'.repeat(to - from);
    pos = to;
    i = close;
  }
  return out + line.slice(pos);
}
const SPACE_OR_PUNCT = /^$|[\s\p{P}\p{S}]/u;

/**
 * Upper estimate of how deep a line's inline content nests, carried over the lines of a paragraph:
 * a delimiter run with a space (or the line's edge) before it and text after opens as many levels as
 * it has characters, one with text before and a space after closes them; brackets open and close one.
 */
function inlineDepths(source: string, depth: number): { depth: number; max: number } {
  const line = withoutCodeSpans(source);
  let max = depth;
  for (const m of line.matchAll(INLINE)) {
    const run = m[0];
    if (run.startsWith('\\')) continue;
    if (run === '[') depth++;
    else if (run === ']') depth = Math.max(0, depth - 1);
    else {
      const before = line[m.index - 1] ?? '';
      const after = line[m.index + run.length] ?? '';
      const levels = run[0] === '~' ? 1 : run.length;
      const opens = SPACE_OR_PUNCT.test(before) && !/^$|\s/.test(after);
      const closes = !/^$|\s/.test(before) && SPACE_OR_PUNCT.test(after);
      if (opens && !closes) depth += levels;
      else if (closes && !opens) depth = Math.max(0, depth - levels);
    }
    max = Math.max(max, depth);
  }
  return { depth, max };
}

/** The line (from 1) where a paragraph's inline content nests deeper than MAX_INLINE_NESTING, or 0. */
function tooDeepInlineLine(lines: readonly string[]): number {
  let fence: string | undefined;
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      depth = 0;
      continue;
    }
    if (line.trim() === '') {
      depth = 0;
      continue;
    }
    const next = inlineDepths(line, depth);
    if (next.max > MAX_INLINE_NESTING) return i + 1;
    depth = next.depth;
  }
  return 0;
}

/**
 * The tree of a Markdown text. `maxBytes` bounds what is parsed at once (micromark holds the whole
 * text and its tokens in memory): a larger file is a DocumentFormatError naming the limit.
 */
export function parseMarkdown(text: string, what: string, maxBytes: number, mdx = false): Root {
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes)
    throw new DocumentFormatError(
      `${what} is ${bytes} bytes of text, more than the ${maxBytes} bytes a Markdown document may hold`,
    );
  // Checked before the parse, in one pass over the lines: a hostile file fails at once.
  const lines = text.split(/\r\n|\n|\r/);
  const deep = tooDeepLine(lines);
  if (deep)
    throw new DocumentFormatError(
      `${what} nests block quotes or lists more than ${MAX_NESTING} levels deep (line ${deep})`,
    );
  const deepInline = tooDeepInlineLine(lines);
  if (deepInline)
    throw new DocumentFormatError(
      `${what} nests emphasis, strikethrough or links more than ${MAX_INLINE_NESTING} levels deep (line ${deepInline})`,
    );
  try {
    return (mdx ? mdxProcessor : processor).parse(text);
  } catch (err) {
    if (err instanceof RangeError)
      throw new DocumentFormatError(`${what} nests its content too deeply to be read (${err.message})`);
    // remark-mdx's messages (an unclosed tag, an expression acorn cannot parse) are vfile messages:
    // their line is a property, or only in their text ("Expected a closing tag for `<a>` (5:1-5:10)").
    if (mdx && err instanceof Error && 'reason' in err && 'ruleId' in err) {
      const { line, reason } = err as { line?: number; reason?: string };
      const at = line ?? Number(/\((\d+):\d+(?:-\d+:\d+)?\)/.exec(err.message)?.[1] ?? NaN);
      throw new DocumentFormatError(
        `${what} is not valid MDX${Number.isNaN(at) ? '' : ` (line ${at})`}: ${reason ?? err.message}`,
      );
    }
    throw err;
  }
}
