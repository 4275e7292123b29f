// Placeholders and inline markup of UI strings, protected from translation: a value is cut into
// text pieces (translated) and code pieces (written back as they are, document.ts), so "{count}
// files in %1$s" can never come back as "{Anzahl} Dateien in %1 $s". The same recognition is the
// check the QA layer runs on a translated value (comparePlaceholders): a placeholder of the source
// missing from the translation, or one the translation made up, fails it.
//
// Recognised: ICU messages ({count, plural, one {# file} other {# files}}: the branch texts are
// translated, the structure is code; parsed with @formatjs/icu-messageformat-parser), simple ICU /
// MessageFormat / i18next arguments ({name}, {0}, {0,number}, {{name}}, $t(key)), Laravel's :name, printf and its
// relatives (%s, %1$d, %@, %lld, %.2f, %%, Python's %(name)s, Ruby's %{name} and %<name>s,
// stringsdict's %#@files@, a String Catalog's %arg), HTML/XML tags (<b>, </a>, <br/>) and character references (&amp;).
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { Piece } from './segment.js';

/** Placeholder and markup syntaxes in the order they are tried at one position (longest first). */
const TOKEN = new RegExp(
  [
    /<\/?[A-Za-z][\w:.-]*(?:\s[^<>]*)?\/?>/.source, // HTML/XML tag
    /&(?:[A-Za-z][A-Za-z0-9]*|#\d+|#x[0-9A-Fa-f]+);/.source, // character reference
    /\{\{[^{}]*\}\}/.source, // {{name}} (i18next, Handlebars, Angular)
    /%\{[^{}\s]+\}/.source, // %{name} (Ruby, Rails)
    /%<\w+>[-+0# ]*\d*(?:\.\d+)?[a-zA-Z]/.source, // %<name>s (Ruby)
    /%\(\w+\)[-+0# ]*\d*(?:\.\d+)?[a-zA-Z]/.source, // %(name)s (Python)
    /%#@\w+@/.source, // %#@files@ (stringsdict)
    /%arg\b/.source, // %arg (a String Catalog substitution's own number)
    /%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[A-Za-z@]/.source, // printf, strftime (%Y)
    /%%/.source,
    /\$t\([^()]*\)/.source, // i18next nesting
    /(?<![\w:/\\]):[A-Za-z_]\w*(?![\w:])/.source, // :name (Laravel, Rails named parameters)
    /\{[^{}\s][^{}]*\}/.source, // {name}, {0}, {0,number,integer}
  ].join('|'),
  'g',
);

/** An ICU message with a plural/select or formatted argument is parsed as one; others are scanned. */
const ICU_COMPLEX = /\{\s*[\w.-]+\s*,\s*(?:plural|select|selectordinal|number|date|time)\b/;

/** Adds a piece, joining it to the previous one when both are code (or both text). */
function push(pieces: Piece[], text: string, code: boolean): void {
  if (text === '') return;
  const last = pieces[pieces.length - 1];
  if (last && !!last.code === code)
    pieces[pieces.length - 1] = code ? { text: last.text + text, code: true } : { text: last.text + text };
  else pieces.push(code ? { text, code: true } : { text });
}

/** Pieces of a text with no ICU structure: the tokens above are code, the rest text. */
function scanPieces(text: string, pieces: Piece[] = []): Piece[] {
  let pos = 0;
  for (const m of text.matchAll(TOKEN)) {
    push(pieces, text.slice(pos, m.index), false);
    push(pieces, m[0], true);
    pos = m.index + m[0].length;
  }
  push(pieces, text.slice(pos), false);
  return pieces;
}

/** Source ranges [start, end) of the literal texts of an ICU message, in order. */
function literalRanges(
  elements: readonly MessageFormatElement[],
  out: Array<[number, number]> = [],
): Array<[number, number]> {
  for (const e of elements) {
    if (e.type === TYPE.literal && e.location) out.push([e.location.start.offset, e.location.end.offset]);
    else if (e.type === TYPE.plural || e.type === TYPE.select)
      for (const option of Object.values(e.options)) literalRanges(option.value, out);
  }
  return out;
}

/** An ICU message's elements, when it is one with a plural/select or formatted argument that parses. */
export function parseIcu(text: string): MessageFormatElement[] | undefined {
  if (!ICU_COMPLEX.test(text)) return undefined;
  try {
    return parse(text, { captureLocation: true, ignoreTag: true });
  } catch {
    return undefined; // not a valid ICU message: its placeholders are found by scanning
  }
}

/**
 * The pieces of a UI string: placeholders, markup and ICU structure as code pieces, the words
 * between them as text pieces. Joining the pieces' texts gives `text` back.
 */
export function protectPlaceholders(text: string): Piece[] {
  const icu = parseIcu(text);
  if (!icu) return scanPieces(text);
  const pieces: Piece[] = [];
  let pos = 0;
  for (const [start, end] of literalRanges(icu)) {
    push(pieces, text.slice(pos, start), true);
    scanPieces(text.slice(start, end), pieces);
    pos = end;
  }
  push(pieces, text.slice(pos), true);
  return pieces;
}

/** Tokens of an ICU message's structure: {name}, {name, plural}, # (each once: branches differ per language). */
function icuTokens(elements: readonly MessageFormatElement[], out: Set<string>): void {
  for (const e of elements) {
    if (e.type === TYPE.argument) out.add(`{${e.value}}`);
    else if (e.type === TYPE.pound) out.add('#');
    else if (e.type === TYPE.number || e.type === TYPE.date || e.type === TYPE.time)
      out.add(`{${e.value}, ${TYPE[e.type]}}`);
    else if (e.type === TYPE.plural || e.type === TYPE.select) {
      out.add(`{${e.value}, ${e.type === TYPE.select ? 'select' : 'plural'}}`);
      for (const option of Object.values(e.options)) icuTokens(option.value, out);
    }
  }
}

/**
 * The placeholders and markup of a text, sorted (a placeholder used twice is listed twice; the
 * parts of an ICU message's structure once each, since a language with more plural forms has more
 * branches).
 */
export function placeholdersOf(text: string): string[] {
  const icu = parseIcu(text);
  const found: string[] = [];
  if (icu) {
    const structure = new Set<string>();
    icuTokens(icu, structure);
    found.push(...structure);
    for (const [start, end] of literalRanges(icu))
      for (const m of text.slice(start, end).matchAll(TOKEN)) found.push(m[0]);
  } else for (const m of text.matchAll(TOKEN)) found.push(m[0]);
  return found.sort();
}

export interface PlaceholderComparison {
  /** Placeholders of the source the translation lacks (as many times as they are short). */
  missing: string[];
  /** Placeholders in the translation the source does not have. */
  unexpected: string[];
}

/** What a translation lost or made up of its source's placeholders (both empty: it passes). */
export function comparePlaceholders(source: string, translation: string): PlaceholderComparison {
  const left = placeholdersOf(translation);
  const missing: string[] = [];
  for (const p of placeholdersOf(source)) {
    const i = left.indexOf(p);
    if (i === -1) missing.push(p);
    else left.splice(i, 1);
  }
  return { missing, unexpected: left };
}

/** One line for a person: "missing {count}, %s; unexpected <b>", or '' when nothing is wrong. */
export function describePlaceholderProblems(c: PlaceholderComparison): string {
  const parts: string[] = [];
  if (c.missing.length) parts.push(`missing ${c.missing.join(', ')}`);
  if (c.unexpected.length) parts.push(`unexpected ${c.unexpected.join(', ')}`);
  return parts.join('; ');
}
