// JSON string files (i18next, vue-i18n, react-intl, next-intl; nested keys and arrays) and Flutter's
// ARB (JSON whose "@key" entries are metadata and "@@locale" names the language). Every string value
// is a keyed value ("app.title", "steps[2]"); numbers, booleans and null are left alone.
//
// Written by hand: JSON.parse (which checks the file first, for its error message) keeps no
// positions, and no installed library gives a string's offsets; splicing at offsets is what keeps
// indentation, key order and escapes of the untouched values byte for byte.
import { readFile } from 'node:fs/promises';
import { DocumentFormatError } from '../../errors.js';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, writesUnicodeEscapes, type StringEntry } from './keyed.js';
import { languageInStyle } from '../../language-tag.js';

interface JsonString {
  path: string;
  start: number;
  end: number;
  /** Top-level key (ARB skips "@..." ones). */
  top: string;
}

/** Offsets of every string value of a valid JSON text, with its key path. */
function stringValues(text: string): JsonString[] {
  const out: JsonString[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n\uFEFF'.includes(text[i] as string)) i++;
  };
  const str = (): [number, number] => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return [start, i];
  };
  const value = (path: string, top: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const [ks, ke] = str();
        const key = JSON.parse(text.slice(ks, ke)) as string;
        ws();
        i++; // ':'
        value(path ? `${path}.${key}` : key, top || key);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`, top);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') {
      const [start, end] = str();
      out.push({ path, start, end, top });
    } else {
      while (i < text.length && !',}] \t\r\n'.includes(text[i] as string)) i++;
    }
  };
  value('', '');
  return out;
}

/** A JSON string literal; non-ASCII as \u escapes when the file writes it so (an ASCII-only file). */
function jsonString(text: string, asciiOnly: boolean): string {
  const s = JSON.stringify(text);
  return asciiOnly
    ? s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : s;
}

function parseChecked(text: string, what: string): void {
  try {
    JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line = m ? text.slice(0, Number(m[1])).split('\n').length : undefined;
    throw new DocumentFormatError(
      `${what} is not valid JSON${line ? ` (line ${line})` : ''}: ${(e as Error).message}`,
    );
  }
}

export const readJson: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const text = decoded.text;
  parseChecked(text, `the .${ctx.format} file`);
  const arb = ctx.format === 'arb';
  const asciiOnly = writesUnicodeEscapes(text);
  const encode = (t: string): string => jsonString(t, asciiOnly);
  const entries: StringEntry[] = [];
  let locale: JsonString | undefined;
  for (const s of stringValues(text)) {
    if (arb && s.top === '@@locale') locale = s;
    if (arb && s.top.startsWith('@')) continue;
    const value = JSON.parse(text.slice(s.start, s.end)) as string;
    entries.push({ key: s.path, text: value, span: { start: s.start, end: s.end }, encode });
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
