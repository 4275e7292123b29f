// Markdown parsed to an mdast tree with source offsets (the unified/remark family: CommonMark, GitHub's
// tables, strikethrough, task lists, autolinks and footnotes, and YAML/TOML front matter). The reader
// and the content digest parse the same way, so both see the same document.
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { DocumentFormatError } from '../errors.js';

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter, ['yaml', 'toml']).freeze();

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
function tooDeepLine(text: string): number {
  const lines = text.split(/\r\n|\n|\r/);
  const i = lines.findIndex((l) => nestingOf(l) > MAX_NESTING);
  return i + 1;
}

/**
 * The tree of a Markdown text. `maxBytes` bounds what is parsed at once (micromark holds the whole
 * text and its tokens in memory): a larger file is a DocumentFormatError naming the limit.
 */
export function parseMarkdown(text: string, what: string, maxBytes: number): Root {
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes)
    throw new DocumentFormatError(
      `${what} is ${bytes} bytes of text, more than the ${maxBytes} bytes a Markdown document may hold`,
    );
  const deep = tooDeepLine(text);
  if (deep)
    throw new DocumentFormatError(
      `${what} nests block quotes or lists more than ${MAX_NESTING} levels deep (line ${deep})`,
    );
  try {
    return processor.parse(text);
  } catch (err) {
    if (err instanceof RangeError)
      throw new DocumentFormatError(`${what} nests its content too deeply to be read (${err.message})`);
    throw err;
  }
}
