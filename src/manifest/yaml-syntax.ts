import { CST, Lexer, type LineCounter, type YAMLError } from 'yaml';
import { indentMistake, nextContentLine } from './yaml-indent.js';

// One YAML syntax mistake, reported once and where it was made. The parser reports where it
// noticed the problem, often far later (an unclosed quote at the end of the file, an unclosed `[`
// on the next key) and then every error that follows from it; a user needs the first mistake, at
// the place to fix, with the line shown.

export interface SyntaxMistake {
  /** 0-based offset of the place to fix. */
  offset: number;
  message: string;
}

/** Parser messages that mean a line is not indented like its block. */
const INDENTATION = /same column|without - indicator|sufficiently indented|indentation/i;

/** Lexer markers that are not characters of the text. */
const MARKERS = new Set(['doc-mode', 'flow-error-end', 'scalar']);

/**
 * Where the construct enclosing `at` was opened: the quoted scalar that runs to `at` (for an
 * unclosed quote), or the innermost flow collection (`[`/`{`) still open at `at`.
 */
function openedBefore(text: string, at: number, what: 'quote' | 'flow'): number | undefined {
  let offset = 0;
  const open: number[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    if (offset > at) break;
    const type = CST.tokenType(lexeme);
    if (type && MARKERS.has(type)) continue;
    if (what === 'quote' && (type === 'double-quoted-scalar' || type === 'single-quoted-scalar')) {
      if (at >= offset && at <= offset + lexeme.length) return offset;
    } else if (type === 'flow-seq-start' || type === 'flow-map-start') open.push(offset);
    else if (type === 'flow-seq-end' || type === 'flow-map-end') open.pop();
    offset += lexeme.length;
  }
  return what === 'flow' ? open.at(-1) : undefined;
}

/** The place to fix for one parser error. */
function placeOf(text: string, lines: LineCounter, e: YAMLError): number {
  const [start, end] = e.pos;
  if (/quote/i.test(e.message)) return openedBefore(text, start, 'quote') ?? start;
  if (/flow/i.test(e.message)) return openedBefore(text, start, 'flow') ?? start;
  // "All mapping items must start at the same column": the range runs from the collection to the
  // line that breaks it; that line, at its first character, is the one to fix.
  if (e.code === 'BAD_INDENT' && lines.linePos(end).line > lines.linePos(start).line)
    return skipIndent(text, lines, end);
  return skipIndent(text, lines, start);
}

/** At the start of a line, the first character after its indentation (spaces; a tab is the error). */
function skipIndent(text: string, lines: LineCounter, at: number): number {
  if (lines.linePos(at).col !== 1) return at;
  let i = at;
  while (text[i] === ' ') i++;
  return text[i] === '\n' || text[i] === '\r' || i >= text.length ? at : i;
}

/** Parser errors that come from a line indented wrongly (at that line, or the one before it). */
const INDENT_CODES = new Set(['BAD_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/**
 * The line indented wrongly behind a parser error, and what is wrong with it in words: the line
 * the parser points at, or the next one ("Nested mappings are not allowed in compact mappings" points
 * at the value of the key above the line that is indented too far).
 */
function indentationAt(
  text: string,
  lines: LineCounter,
  e: YAMLError,
  offset: number,
): SyntaxMistake | undefined {
  if (!INDENT_CODES.has(e.code) && !INDENTATION.test(e.message)) return undefined;
  const line = lines.linePos(offset).line;
  for (const l of [line, nextContentLine(text, line)]) {
    if (l === undefined) continue;
    const words = indentMistake(text, l);
    if (words) return { offset: skipIndent(text, lines, lines.lineStarts[l - 1] ?? 0), message: words };
  }
  return undefined;
}

/** The first mistake among the parser's errors (undefined when there are none). */
export function firstSyntaxMistake(
  text: string,
  lines: LineCounter,
  errors: readonly YAMLError[],
): SyntaxMistake | undefined {
  let best: SyntaxMistake | undefined;
  for (const e of errors) {
    const place = placeOf(text, lines, e);
    const indent = indentationAt(text, lines, e, place);
    const offset = indent?.offset ?? place;
    if (best && best.offset <= offset) continue;
    const message = e.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '');
    best = indent ?? {
      offset,
      message: INDENTATION.test(message) ? `${message} (check this line's indentation)` : message,
    };
  }
  return best;
}

/** The line of `offset` with a caret under its column, e.g. "  64 |   source: \"x\n     |           ^". */
export function excerptAt(text: string, lines: LineCounter, offset: number): string {
  const { line, col } = lines.linePos(offset);
  const lineStart = lines.lineStarts[line - 1] ?? 0;
  const nl = text.indexOf('\n', lineStart);
  let src = text.slice(lineStart, nl < 0 ? undefined : nl).replace(/\r$/, '');
  let caret = col - 1;
  // Long lines are cut around the column.
  const WIDTH = 100;
  if (src.length > WIDTH) {
    const from = Math.max(0, Math.min(caret - WIDTH / 2, src.length - WIDTH));
    src = `${from > 0 ? '…' : ''}${src.slice(from, from + WIDTH)}${from + WIDTH < src.length ? '…' : ''}`;
    caret = caret - from + (from > 0 ? 1 : 0);
  }
  const gutter = String(line).length;
  const pad = ' '.repeat(gutter);
  const tabsKept = src.slice(0, caret).replace(/[^\t]/g, ' ');
  return `  ${line} | ${src}\n  ${pad} | ${tabsKept}^`;
}
