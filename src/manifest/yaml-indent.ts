// A line indented wrongly, said in words. The parser's own words ("Nested mappings are not allowed
// in compact mappings", "A block sequence may not be used as an implicit map key") describe how it
// read the text, often on the line before the one to fix; a person needs the line whose indentation
// is wrong and what it should line up with. Only the shapes a manifest is written in are explained
// (keys of a mapping, items of a list); anything else is left to the parser's message.

/** One line as far as indentation goes. */
interface LineShape {
  /** 1-based line number. */
  line: number;
  /** Column (0-based) of the first character after the indentation. */
  indent: number;
  /** Column (0-based) of the item's `-` when the line starts a list item. */
  dash?: number;
  /** The key the line starts with (after any `- `), and its column (0-based). */
  key?: { name: string; col: number; hasValue: boolean };
}

const KEY = /^((?:"[^"]*"|'[^']*'|[^\s#'"\-?:,[\]{}][^:#]*?))\s*:(?:\s+(.*))?$/;

function shapeOf(text: string, line: number): LineShape | undefined {
  const indent = text.length - text.replace(/^ +/, '').length;
  let rest = text.slice(indent);
  // A tab in the indentation is a mistake of its own (the parser says so).
  if (rest.startsWith('\t')) return undefined;
  if (rest === '' || rest.startsWith('#')) return undefined;
  const shape: LineShape = { line, indent };
  let col = indent;
  if (/^-(\s|$)/.test(rest)) {
    shape.dash = col;
    const after = rest.slice(1);
    const pad = after.length - after.trimStart().length;
    col += 1 + pad;
    rest = after.trimStart();
  }
  const m = KEY.exec(rest);
  if (m) {
    const value = (m[2] ?? '').replace(/\s+#.*$/, '').trim();
    shape.key = { name: m[1]!.replace(/^["']|["']$/g, ''), col, hasValue: value !== '' };
  }
  return shape;
}

/** The lines of `text` (without line ends). */
function splitLines(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/\r$/, ''));
}

/** The nearest line above `line` (1-based) with content. */
function above(all: string[], line: number): LineShape | undefined {
  for (let i = line - 2; i >= 0; i--) {
    const s = shapeOf(all[i]!, i + 1);
    if (s) return s;
  }
  return undefined;
}

/** The first line with content after `line` (1-based), if any. */
export function nextContentLine(text: string, line: number): number | undefined {
  const all = splitLines(text);
  for (let i = line; i < all.length; i++) if (shapeOf(all[i]!, i + 1)) return i + 1;
  return undefined;
}

const col1 = (c: number) => c + 1;

/**
 * What is wrong with the indentation of `line` (1-based), in words, when it is one of the usual
 * mistakes: a key indented more than a key with a value above it, a key between two columns, a list
 * item whose `-` is not in line with the item above it. Undefined when the line looks right.
 */
export function indentMistake(text: string, line: number): string | undefined {
  const all = splitLines(text);
  const here = shapeOf(all[line - 1] ?? '', line);
  const prev = above(all, line);
  if (!here || !prev) return undefined;
  if (here.dash !== undefined) {
    // Items of one list: the nearest item above at a column close to this one.
    for (let i = line - 2; i >= 0; i--) {
      const s = shapeOf(all[i]!, i + 1);
      if (!s) continue;
      if (s.dash !== undefined && s.dash !== here.dash && Math.abs(s.dash - here.dash) <= 2) {
        const side = here.dash < s.dash ? 'left' : 'right';
        return `this list item's '-' is in column ${col1(here.dash)}, ${Math.abs(s.dash - here.dash)} to the ${side} of the item above it (line ${s.line}, column ${col1(s.dash)}): the items of one list start in the same column`;
      }
      if (s.dash === here.dash || s.indent < here.dash - 2) break;
    }
    return undefined;
  }
  if (!here.key) return undefined;
  const name = here.key.name;
  if (prev.key?.hasValue && here.indent > prev.key.col)
    return `this line is indented more than the key above it ('${prev.key.name}' on line ${prev.line}, which has a value): start '${name}' in column ${col1(prev.key.col)}, as '${prev.key.name}'`;
  // Keys of one mapping start in one column: is there one above in this column?
  for (let i = line - 2; i >= 0; i--) {
    const s = shapeOf(all[i]!, i + 1);
    if (!s?.key) continue;
    if (s.key.col === here.indent) return undefined;
    if (s.key.col < here.indent) {
      if (prev.key && prev.key.col > here.indent)
        return `this line is indented less than the key above it ('${prev.key.name}' on line ${prev.line}) and more than '${s.key.name}' (line ${s.line}): start '${name}' in column ${col1(prev.key.col)} or ${col1(s.key.col)}, as the key it belongs beside`;
      return undefined;
    }
  }
  return undefined;
}
