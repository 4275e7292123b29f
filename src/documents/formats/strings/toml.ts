// TOML string files (docs/strings/toml.md): Hugo and go-i18n message files, app config with UI
// text. smol-toml checks the file (a broken one is refused naming its line) and decodes each
// string literal; it keeps no positions, so the scan below finds every string value's offsets
// (tables, arrays of tables, dotted and quoted keys, arrays, inline tables) and the writer splices
// the translations there, so comments, key order, numbers, dates and indentation stay byte for
// byte. A value is written in its source's string style where that style can hold it (a literal
// 'string' with a quote or a line break in its translation becomes a "basic" one).
//
// A table whose keys are CLDR plural categories with `other` among them (go-i18n, Hugo:
// `[files] one = "..." other = "..."`) is a plural: the target gets its language's forms.
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import { DocumentFormatError } from '../../errors.js';
import { decodeText } from '../text-encoding.js';
import type { Splice } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type StringEntry } from './keyed.js';
import { formsFor } from './plurals.js';

/** A key = value of a table (or inline table): where it is, and its string's offsets if it is one. */
interface Member {
  parent: string;
  name: string;
  start: number;
  end: number;
  string?: { path: string; start: number; end: number };
}

const DATE_TIME = /\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?/y;

const join = (path: string, parts: readonly string[]): string => [path, ...parts].filter(Boolean).join('.');

/** The value of one TOML string literal, as smol-toml reads it. */
function decodeLiteral(literal: string): string {
  return (parse(`v = ${literal}`) as { v: string }).v;
}

/** Every key = value and every string value (array items too) of a valid TOML text. */
function scan(text: string): { members: Member[]; strings: Member['string'][] } {
  const members: Member[] = [];
  const strings: NonNullable<Member['string']>[] = [];
  const arrayTables = new Map<string, number>();
  const n = text.length;
  let i = 0;
  const blanks = (): void => {
    while (text[i] === ' ' || text[i] === '\t') i++;
  };
  /** Blanks, line breaks and comments (inside arrays). */
  const gaps = (): void => {
    for (;;) {
      while (i < n && /[ \t\r\n]/.test(text[i] as string)) i++;
      if (text[i] !== '#') return;
      while (i < n && text[i] !== '\n') i++;
    }
  };
  const str = (): [number, number] => {
    const q = text[i] as string;
    const start = i;
    if (text.startsWith(q.repeat(3), i)) {
      i += 3;
      while (!text.startsWith(q.repeat(3), i)) i += q === '"' && text[i] === '\\' ? 2 : 1;
      i += 3;
      while (text[i] === q) i++; // up to two quotes of the content before the closing three
    } else {
      i++;
      while (text[i] !== q) i += q === '"' && text[i] === '\\' ? 2 : 1;
      i++;
    }
    return [start, i];
  };
  const keyPart = (): string => {
    blanks();
    if (text[i] === '"' || text[i] === "'") {
      const [s, e] = str();
      return decodeLiteral(text.slice(s, e));
    }
    const s = i;
    while (i < n && /[A-Za-z0-9_-]/.test(text[i] as string)) i++;
    return text.slice(s, i);
  };
  const key = (): string[] => {
    const parts = [keyPart()];
    blanks();
    while (text[i] === '.') {
      i++;
      parts.push(keyPart());
      blanks();
    }
    return parts;
  };
  const value = (path: string): void => {
    blanks();
    const c = text[i];
    if (c === '"' || c === "'") {
      const [start, end] = str();
      strings.push({ path, start, end });
    } else if (c === '[') {
      i++;
      for (let k = 0; ; k++) {
        gaps();
        if (text[i] === ']') break;
        value(`${path}[${k}]`);
        gaps();
        if (text[i] === ',') i++;
      }
      i++;
    } else if (c === '{') {
      i++;
      keyValues(path, '}');
    } else {
      DATE_TIME.lastIndex = i;
      if (DATE_TIME.test(text)) i = DATE_TIME.lastIndex;
      else while (i < n && !/[\s,\]}#]/.test(text[i] as string)) i++;
    }
  };
  /** Key = value pairs up to `close` ('}' for an inline table, '' for a table's lines). */
  const keyValues = (table: string, close: '}' | ''): void => {
    for (;;) {
      gaps();
      if (i >= n || (close && text[i] === close) || (!close && text[i] === '[')) break;
      const start = i;
      const parts = key();
      blanks();
      i++; // '='
      const before = strings.length;
      const path = join(table, parts);
      value(path);
      const s = strings.length === before + 1 ? strings[before] : undefined;
      members.push({
        parent: join(table, parts.slice(0, -1)),
        name: parts[parts.length - 1] as string,
        start,
        end: i,
        ...(s && s.path === path ? { string: s } : {}),
      });
      blanks();
      if (close && text[i] === ',') i++;
      if (!close) while (i < n && text[i] !== '\n') i++; // the rest of the line: a comment
    }
    if (close) i++;
  };
  for (;;) {
    keyValues('', '');
    if (i >= n) break;
    const array = text.startsWith('[[', i);
    i += array ? 2 : 1;
    let table = key().join('.');
    if (array) {
      const k = arrayTables.get(table) ?? 0;
      arrayTables.set(table, k + 1);
      table = `${table}[${k}]`;
    }
    while (i < n && text[i] !== '\n') i++;
    keyValues(table, '');
  }
  return { members, strings };
}

// eslint-disable-next-line no-control-regex -- what TOML strings must escape: control characters
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- a literal string can hold neither these nor a quote
const NOT_LITERAL = /['\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- escaped in a basic string, with \\ and "
const BASIC_ESCAPED = /[\\"\u0000-\u001f\u007f]/g;

/** A TOML basic string ("...") of `t`: backslash, quote and control characters escaped. */
function basic(t: string, multiline: boolean): string {
  const body = t.replace(BASIC_ESCAPED, (c) => {
    if (multiline && (c === '\n' || c === '\t')) return c;
    const named: Record<string, string> = {
      '\\': '\\\\',
      '"': '\\"',
      '\n': '\\n',
      '\t': '\\t',
      '\r': '\\r',
      '\b': '\\b',
      '\f': '\\f',
    };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return multiline ? `"""${body}"""` : `"${body}"`;
}

/** How a translation of the string literal `raw` is written: in its style, where that style can hold it. */
function encoderFor(raw: string): (t: string) => string {
  const triple = raw.startsWith('"""') || raw.startsWith("'''");
  // A multi-line string whose text starts on the next line keeps that line break (TOML trims it).
  const lead = triple && /^...\r?\n/.test(raw) ? (/^...(\r?\n)/.exec(raw)?.[1] ?? '') : '';
  return (t) => {
    const withLead = (s: string): string => (lead ? s.slice(0, 3) + lead + s.slice(3) : s);
    if (raw.startsWith("'''") && !t.includes("'''") && !CONTROL.test(t) && !t.endsWith("'"))
      return withLead(`'''${t}'''`);
    if (raw.startsWith("'") && !triple && !NOT_LITERAL.test(t)) return `'${t}'`;
    return triple ? withLead(basic(t, true)) : basic(t, false);
  };
}

const CATEGORIES = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);
/** go-i18n's notes beside a message's forms: kept as they are, not translated. */
const MESSAGE_NOTES = new Set(['description', 'hash']);

/**
 * go-i18n messages: tables whose keys are plural categories with `other` among them (and perhaps
 * a description and hash), every form a string. `forms` are the categories, one after another.
 */
function messageTables(
  text: string,
  members: readonly Member[],
): Array<{ forms: Member[]; notes: Member[] }> {
  const byParent = new Map<string, Member[]>();
  for (const m of members) byParent.set(m.parent, [...(byParent.get(m.parent) ?? []), m]);
  const tables: Array<{ forms: Member[]; notes: Member[] }> = [];
  for (const [parent, all] of byParent) {
    const forms = all.filter((m) => CATEGORIES.has(m.name));
    const notes = all.filter((m) => MESSAGE_NOTES.has(m.name));
    if (!parent || !forms.some((f) => f.name === 'other') || forms.length + notes.length < all.length)
      continue;
    if (!forms.every((f) => f.string)) continue;
    const between = (k: number) => text.slice((forms[k - 1] as Member).end, (forms[k] as Member).start);
    if (forms.every((_f, k) => k === 0 || /^[\s,]*$/.test(between(k)))) tables.push({ forms, notes });
  }
  return tables;
}

export const readToml: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const text = decoded.text;
  try {
    parse(text);
  } catch (e) {
    const line = e instanceof TomlError ? ` (line ${e.line})` : '';
    const message = ((e as Error).message.split('\n')[0] ?? '').trim();
    throw new DocumentFormatError(`${what} is not valid TOML${line}: ${message}`);
  }
  const { members, strings } = scan(text);
  const messages = messageTables(text, members);
  const formOf = new Map<Member['string'], Member>();
  const notes = new Set<Member['string']>();
  for (const { forms, notes: n } of messages) {
    for (const f of forms) formOf.set(f.string, f);
    for (const m of n) notes.add(m.string);
  }
  // An `other`-only message is not plural: only a message with forms gets the target's.
  const plurals = messages.map((m) => m.forms).filter((forms) => forms.length > 1);
  const entries: StringEntry[] = [];
  const entryOf = new Map<Member, StringEntry>();
  for (const s of strings) {
    if (!s || notes.has(s)) continue;
    const raw = text.slice(s.start, s.end);
    const form = formOf.get(s);
    const entry: StringEntry = {
      key: form ? `${form.parent} (${form.name})` : s.path,
      text: decodeLiteral(raw),
      span: { start: s.start, end: s.end },
      encode: encoderFor(raw),
    };
    if (form) entryOf.set(form, entry);
    entries.push(entry);
  }
  const forms = (table: Member[]) =>
    table.map((m) => ({ category: m.name, member: m, entry: entryOf.get(m)! }));
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    icuPlurals: true,
    addedForms: (lang) =>
      plurals.flatMap((table) =>
        (formsFor(forms(table), lang) ?? []).flatMap(([c, donor]) =>
          table.some((m) => m.name === c)
            ? []
            : [{ key: `${donor.member.parent} (${c})`, donor: donor.entry }],
        ),
      ),
    languageSplices: (lang, valueOf) => {
      const splices: Splice[] = [];
      for (const table of plurals) {
        const target = formsFor(forms(table), lang);
        const first = table[0];
        const last = table[table.length - 1];
        if (!target || !first || !last) continue;
        const separator = table.length > 1 ? text.slice(first.end, (table[1] as Member).start) : '\n';
        const keyStart = text.slice(first.start, first.string!.start); // "one = " as written
        const lines = target.map(([c, donor]) => {
          const own = table.some((m) => m.name === c) ? undefined : `${first.parent} (${c})`;
          const value = donor.entry.encode!(valueOf(donor.entry, own));
          return `${keyStart.replace(first.name, c)}${value}`;
        });
        splices.push({ start: first.start, end: last.end, text: lines.join(separator) });
      }
      return splices;
    },
  });
};
