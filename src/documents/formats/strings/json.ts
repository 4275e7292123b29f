// JSON string files (i18next, vue-i18n, react-intl, next-intl; nested keys and arrays) and Flutter's
// ARB (JSON whose "@key" entries are metadata and "@@locale" names the language). Every string value
// is a keyed value ("app.title", "steps[2]"); numbers, booleans and null are left alone.
//
// JSONC (VS Code, tsconfig-style: comments, trailing commas) and JSON5 (also unquoted keys,
// single-quoted strings, hex numbers) are the same files with more syntax: the json5 package checks
// them and decodes their literals, and the scan below steps over comments and trailing commas, so
// they stay byte for byte like everything else outside the values.
//
// Written by hand: JSON.parse (which checks the file first, for its error message) keeps no
// positions, and no installed library gives a string's offsets; splicing at offsets is what keeps
// indentation, key order and escapes of the untouched values byte for byte.
import { readFile } from 'node:fs/promises';
import JSON5 from 'json5';
import { DocumentFormatError } from '../../errors.js';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, writesUnicodeEscapes, type StringEntry } from './keyed.js';
import { languageInStyle } from '../../language-tag.js';
import { NotStrictJson, scanStrictJson } from './json-strict.js';
import { walkJson, type ScannedString } from './json-walk.js';

/**
 * Each string value of a valid JSON, JSONC or JSON5 text, with its key path. The text has been
 * parsed first (JSON.parse or JSON5.parse), so these tokens only need to find their way: comments
 * are skipped, a trailing comma closes its object or array, a key may be unquoted (JSON5) and a
 * string single-quoted (JSON5).
 */
function relaxedValues(text: string): Generator<ScannedString> {
  let i = 0;
  const ws = (): void => {
    for (;;) {
      while (i < text.length && /[\s\uFEFF]/.test(text[i] as string)) i++;
      if (text.startsWith('//', i)) {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl + 1;
      } else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) + 2;
      else return;
    }
  };
  const str = (): [number, number] => {
    const quote = text[i];
    const start = i++;
    while (text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
    i++;
    return [start, i];
  };
  /** A string literal's value: JSON5's reading of a single-quoted one. */
  const read = (start: number, end: number): string => {
    const literal = text.slice(start, end);
    return (literal.startsWith("'") ? JSON5.parse(literal) : JSON.parse(literal)) as string;
  };
  return walkJson({
    gap: ws,
    peek: () => text[i],
    skip: () => {
      i++;
    },
    key: () => {
      let k: string;
      if (text[i] === '"' || text[i] === "'") {
        const [ks, ke] = str();
        k = JSON5.parse(text.slice(ks, ke)) as string;
      } else {
        const ks = i;
        while (i < text.length && !/[\s:/]/.test(text[i] as string)) i++;
        k = text.slice(ks, i); // a JSON5 identifier
      }
      ws();
      i++; // ':'
      return k;
    },
    leaf: () => {
      if (text[i] === '"' || text[i] === "'") {
        const [start, end] = str();
        return { start, end, value: read(start, end) };
      }
      while (i < text.length && !/[\s,}\]/]/.test(text[i] as string)) i++;
      return undefined;
    },
    closes: (close) => {
      ws();
      if (text[i++] === close) return true;
      ws();
      if (text[i] !== close) return false;
      i++;
      return true;
    },
  });
}

/** A JSON string literal; non-ASCII as \u escapes when the file writes it so (an ASCII-only file). */
function jsonString(text: string, asciiOnly: boolean): string {
  const s = JSON.stringify(text);
  return asciiOnly
    ? s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

/** A JSON5 single-quoted literal (the quote style of the value it replaces). */
function singleQuoted(text: string, asciiOnly: boolean): string {
  const inner = jsonString(text, asciiOnly).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'");
  return `'${inner}'`;
}

/** JSON5 and JSONC (comments, trailing commas; JSON5 also unquoted keys and single quotes). */
const RELAXED = new Set(['json5', 'jsonc']);

function parseChecked(text: string, format: string): void {
  const what = `the .${format} file`;
  const body = text.replace(/^\uFEFF/, '');
  try {
    if (RELAXED.has(format)) JSON5.parse(body);
    else JSON.parse(body);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line =
      (e as { lineNumber?: number }).lineNumber ??
      (m ? text.slice(0, Number(m[1])).split('\n').length : undefined);
    const kind = format === 'json5' ? 'JSON5' : format === 'jsonc' ? 'JSON with comments' : 'JSON';
    throw new DocumentFormatError(
      `${what} is not valid ${kind}${line ? ` (line ${line})` : ''}: ${(e as Error).message}`,
    );
  }
}

export const readJson: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const text = decoded.text;
  const arb = ctx.format === 'arb';
  const asciiOnly = writesUnicodeEscapes(text);
  const encode = (t: string): string => jsonString(t, asciiOnly);
  const encodeSingle = (t: string): string => singleQuoted(t, asciiOnly);
  let locale: ScannedString | undefined;
  const entryOf = (s: ScannedString, inStyle: (t: string) => string): StringEntry[] =>
    arb && s.top.startsWith('@')
      ? []
      : [{ key: s.path, text: s.value, span: { start: s.start, end: s.end }, encode: inStyle }];
  let entries: readonly StringEntry[] | (() => Iterable<StringEntry>);
  try {
    // Strict JSON (.json, .arb) is checked while its values are found, without building its objects,
    // and its entries are found again by each walk (a 50 MB file's are not kept: a plan's price
    // walks them once).
    if (RELAXED.has(ctx.format)) throw new NotStrictJson();
    for (const s of scanStrictJson(text)) if (arb && s.top === '@@locale') locale = s;
    entries = function* () {
      for (const s of scanStrictJson(text)) yield* entryOf(s, encode);
    };
  } catch (err) {
    if (!(err instanceof NotStrictJson)) throw err;
    // Not taken by the scan: the parser says what is wrong (with the line), or reads what it takes.
    parseChecked(text, ctx.format);
    const found: StringEntry[] = [];
    for (const s of relaxedValues(text)) {
      if (arb && s.top === '@@locale') locale = s;
      found.push(...entryOf(s, text[s.start] === "'" ? encodeSingle : encode));
    }
    entries = found;
  }
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    icuPlurals: true,
    // ARB names its language: "@@locale": "pt_BR" (Flutter's spelling, as in app_pt_BR.arb).
    languageSplices: (lang) =>
      locale ? [{ start: locale.start, end: locale.end, text: encode(languageInStyle(lang, 'posix')) }] : [],
  });
};
