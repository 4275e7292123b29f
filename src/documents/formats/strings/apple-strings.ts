// iOS / macOS .strings files: `"key" = "value";` pairs (keys may be bare words), with /* */ and //
// comments kept as they are. Each value is a keyed value; the writer splices the translated value's
// quoted literal in place. The file's encoding (UTF-16 with a BOM, as Xcode wrote it for years, or
// UTF-8) is kept.
//
// Written by hand: no maintained JavaScript parser of this (old-style plist) syntax reports offsets.
import { readFile } from 'node:fs/promises';
import { DocumentFormatError } from '../../errors.js';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type StringEntry } from './keyed.js';

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', "'": "'" };

function unescapeStrings(s: string): string {
  return s.replace(/\\(U[0-9A-Fa-f]{4}|u[0-9A-Fa-f]{4}|.)/gs, (_m, c: string) =>
    c.length === 5 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (ESCAPES[c] ?? c),
  );
}

function quoteStrings(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')}"`;
}

export const readAppleStrings: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const text = decoded.text;
  const entries: StringEntry[] = [];
  let i = 0;
  const fail = (why: string): never => {
    const line = text.slice(0, i).split('\n').length;
    throw new DocumentFormatError(`${what} is not a valid .strings file (line ${line}): ${why}`);
  };
  /** Skips whitespace and comments. */
  const skip = (): void => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
      if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) fail('a comment is not closed');
        i = end + 2;
      } else if (text.startsWith('//', i)) {
        const end = text.indexOf('\n', i);
        i = end === -1 ? text.length : end + 1;
      } else return;
    }
  };
  /** A quoted or bare token: its decoded text and span. */
  const token = (): { value: string; start: number; end: number } => {
    const start = i;
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) fail('a string is not closed');
      i++;
      return { value: unescapeStrings(text.slice(start + 1, i - 1)), start, end: i };
    }
    while (i < text.length && /[\w.$:/-]/.test(text[i] as string)) i++;
    if (i === start) fail(`unexpected '${text[i]}'`);
    return { value: text.slice(start, i), start, end: i };
  };
  for (skip(); i < text.length; skip()) {
    const key = token();
    skip();
    if (text[i] === ';') {
      i++; // a key alone stands for itself ("Done";)
      continue;
    }
    if (text[i] !== '=') fail(`expected '=' after "${key.value}"`);
    i++;
    skip();
    const value = token();
    skip();
    if (text[i] !== ';') fail(`expected ';' after the value of "${key.value}"`);
    i++;
    entries.push({
      key: key.value,
      text: value.value,
      span: { start: value.start, end: value.end },
      encode: quoteStrings,
    });
  }
  return stringDocument({ format: ctx.format, decoded, entries });
};
