// Java .properties resource bundles (messages.properties → messages_de.properties). properties-file
// parses the file losslessly (comments, continuation lines, escapes, separators); each property is
// a keyed value and the writer replaces the property's lines with its key, separator and the
// translated value escaped as Java reads it. A value continued over several lines is written on one
// (its line breaks were layout, not text). A file that writes non-ASCII as \uXXXX escapes (Java 8's
// ISO-8859-1 bundles) is written that way; a UTF-8 file as UTF-8.
import { readFile } from 'node:fs/promises';
import { escapeValue } from 'properties-file/escape';
import { Properties } from 'properties-file/parser';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, writesUnicodeEscapes, type StringEntry } from './keyed.js';

export const readProperties: FormatReader = async (path, ctx) => {
  const decoded = decodeText(await readFile(path), `the .${ctx.format} file`);
  const text = decoded.text;
  const escapeUnicode = decoded.encoding !== 'utf-8' || writesUnicodeEscapes(text);
  const lineStarts = [0];
  for (const m of text.matchAll(/\r\n|\n|\r/g)) lineStarts.push(m.index + m[0].length);
  const lineEnd = (n: number): number => {
    const next = lineStarts[n];
    if (next === undefined) return text.length;
    return next - (text.startsWith('\r\n', next - 2) ? 2 : 1);
  };
  const entries: StringEntry[] = [];
  for (const p of new Properties(text).getProperties()) {
    const prefix =
      p.leadingWhitespace + p.escapedKey + p.separatorLeading + (p.separatorChar ?? '') + p.separatorTrailing;
    entries.push({
      key: p.key,
      text: p.value,
      span: { start: lineStarts[p.startingLineNumber - 1] ?? 0, end: lineEnd(p.endingLineNumber) },
      encode: (t) => prefix + escapeValue(t, escapeUnicode),
    });
  }
  return stringDocument({ format: ctx.format, decoded, entries });
};
