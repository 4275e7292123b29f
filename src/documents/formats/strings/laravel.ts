// Laravel language files (docs/strings/laravel.md): lang/en/messages.php returns an array of
// strings, nested arrays grouping them (`'auth' => ['failed' => '…']`, key "auth.failed"). php-parser
// (glayzzle) parses the file with each node's offsets; every string literal value is a keyed value
// and the writer splices its translation in place, in the literal's own quotes, so comments, the
// `<?php`, `return [`/`array(` and every other byte stay. `:name` placeholders are protected by the
// shared placeholder rules; lang/en.json files are JSON (the JSON reader).
//
// A value with pipes is a pluralised message for trans_choice: `apple|apples` has a form per plural
// index of the language (Laravel's MessageSelector, the order of gettext's Plural-Forms: plurals.ts),
// so a target gets its language's number of forms (ja one, ru three, ar six), the index that takes
// n = 1 the singular's translation and the others the plural's. A message whose every form starts
// with an interval (`{0} none|{1} one|[2,*] many`) says which numbers take which form itself: its
// forms are translated and its intervals stay.
import { readFile } from 'node:fs/promises';
import { Engine } from 'php-parser';
import { DocumentFormatError } from '../../errors.js';
import { decodeText } from '../text-encoding.js';
import type { Splice } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type StringEntry } from './keyed.js';
import { gettextPlurals } from './plurals.js';

/** The parts of php-parser's AST this reader walks. */
interface PhpNode {
  kind: string;
  loc?: { start: { offset: number; line: number }; end: { offset: number } } | null;
  children?: PhpNode[];
  expr?: PhpNode;
  items?: PhpNode[];
  key?: PhpNode | null;
  value?: PhpNode | string | number;
  raw?: string;
  isDoubleQuote?: boolean;
}

/** A form's interval (`{0}`, `[2,*]`) and the blanks after it, as Laravel's MessageSelector reads it. */
const INTERVAL = /^[{[][^[\]{}]*[}\]]\s*/;

/** A PHP string literal of `t` in the quotes of `raw`. */
function phpLiteral(t: string, raw: string): string {
  if (!raw.startsWith('"')) return `'${t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const named: Record<string, string> = {
    '\n': '\\n',
    '\t': '\\t',
    '\r': '\\r',
    '\v': '\\v',
    '\f': '\\f',
    '\x1b': '\\e',
  };
  // eslint-disable-next-line no-control-regex -- the control characters PHP writes as escapes
  const control = /[\n\t\r\v\f\x1b]/g;
  return `"${t.replace(/[\\"$]/g, '\\$&').replace(control, (c) => named[c] ?? c)}"`;
}

/** Where a string value is and what it holds. */
interface PhpString {
  key: string;
  text: string;
  start: number;
  end: number;
  raw: string;
}

/** A key PHP stores as an integer: a number, or a string of a decimal integer ('7', not '07'). */
function integerKey(key: PhpNode): number | undefined {
  if (key.kind !== 'number' && key.kind !== 'string') return undefined;
  const raw = String(key.value);
  return /^(0|-?[1-9][0-9]*)$/.test(raw) ? Number(raw) : undefined;
}

/**
 * The names of an array's keys as PHP gives them: an item without a key takes the integer after
 * the largest so far (0 at first), so `[5 => 'a', 'b']` holds 5 and 6. An integer key is named
 * `[n]` whether it is written or not, as Laravel reads both (`steps.0`); undefined: a computed key
 * (a constant, an expression), not a language line.
 */
function keyNames(items: readonly PhpNode[]): Array<string | undefined> {
  let next = 0;
  return items.map((entry) => {
    const key = entry.key;
    const n = key ? integerKey(key) : next;
    if (n !== undefined) {
      next = Math.max(next, n + 1);
      return `[${n}]`;
    }
    if (key?.kind === 'number') return `[${String(key.value)}]`; // 0x1F, 1.5: as written
    return key?.kind === 'string' ? String(key.value) : undefined;
  });
}

function stringsOf(array: PhpNode, path: string, out: PhpString[]): void {
  const names = keyNames(array.items ?? []);
  (array.items ?? []).forEach((entry, i) => {
    const name = names[i];
    const value = entry.value as PhpNode | undefined;
    if (name === undefined || !value || typeof value !== 'object') return;
    const key = name.startsWith('[') ? `${path}${name}` : path ? `${path}.${name}` : name;
    if (value.kind === 'array') stringsOf(value, key, out);
    else if (value.kind === 'string' && value.loc && typeof value.value === 'string')
      out.push({
        key,
        text: value.value,
        start: value.loc.start.offset,
        end: value.loc.end.offset,
        raw: value.raw ?? '',
      });
  });
}

/** Whether a value is a pluralised message: forms split by `|` that are not a separator in a sentence. */
function pluralForms(text: string): string[] | undefined {
  if (!text.includes('|')) return undefined;
  const forms = text.split('|');
  const intervals = forms.every((f) => INTERVAL.test(f));
  // "Home | Settings": a pipe between spaces separates words, not forms (unless every form has an interval)
  if (!intervals && /\s\|\s/.test(text)) return undefined;
  return forms;
}

export const readLaravel: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const text = decoded.text;
  let program: PhpNode;
  try {
    const engine = new Engine({
      parser: { php8: true, suppressErrors: false },
      ast: { withPositions: true },
    });
    program = engine.parseCode(text, path) as unknown as PhpNode;
  } catch (e) {
    const line = (e as { lineNumber?: number }).lineNumber;
    throw new DocumentFormatError(
      `${what} is not valid PHP${line ? ` (line ${line})` : ''}: ${(e as Error).message.replace(/ on line \d+$/, '')}`,
    );
  }
  const returned = program.children?.find((c) => c.kind === 'return')?.expr;
  if (returned?.kind !== 'array')
    throw new DocumentFormatError(`${what} is not a Laravel language file: it does not return an array`);
  const strings: PhpString[] = [];
  stringsOf(returned, '', strings);
  const entries: StringEntry[] = [];
  const plurals: Array<{ s: PhpString; forms: StringEntry[]; intervals: string[] }> = [];
  for (const s of strings) {
    const forms = pluralForms(s.text);
    if (!forms) {
      entries.push({ ...s, span: { start: s.start, end: s.end }, encode: (t) => phpLiteral(t, s.raw) });
      continue;
    }
    const intervals = forms.map((f) => INTERVAL.exec(f)?.[0] ?? '');
    const formEntries = forms.map((f, i) => ({
      key: `${s.key} [${i}]`,
      text: f.slice((intervals[i] ?? '').length),
    }));
    entries.push(...formEntries);
    plurals.push({ s, forms: formEntries, intervals });
  }
  /**
   * The source form a target's plural index takes: the singular for the index of n = 1 (unless the
   * language has one form for every number, as Japanese), else the plural.
   */
  const donorOf = (p: (typeof plurals)[number], index: number, lang: string): StringEntry => {
    const { nplurals, one } = gettextPlurals(lang);
    return (nplurals > 1 && index === one ? p.forms[0] : p.forms[p.forms.length - 1]) as StringEntry;
  };
  /** Plain forms (no intervals) are rewritten to the target's count; interval forms stay as they are. */
  const countFor = (p: (typeof plurals)[number], lang: string): number =>
    p.intervals.some(Boolean) ? p.forms.length : gettextPlurals(lang).nplurals;
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: (lang) =>
      plurals.flatMap((p) =>
        Array.from({ length: Math.max(0, countFor(p, lang) - p.forms.length) }, (_x, k) => {
          const index = p.forms.length + k;
          return { key: `${p.s.key} [${index}]`, donor: donorOf(p, index, lang) };
        }),
      ),
    languageSplices: (lang, valueOf) => {
      const splices: Splice[] = [];
      for (const p of plurals) {
        const count = countFor(p, lang);
        const values = Array.from({ length: count }, (_x, i) => {
          const own = p.intervals.some(Boolean) || count === p.forms.length;
          const entry = own ? (p.forms[i] as StringEntry) : donorOf(p, i, lang);
          const added = i >= p.forms.length ? `${p.s.key} [${i}]` : undefined;
          // Laravel has no escape for a pipe inside a form: one in a translation is written ¦
          return (p.intervals[i] ?? '') + valueOf(entry, added).replaceAll('|', '¦');
        });
        const message = values.join('|');
        if (message !== p.s.text)
          splices.push({ start: p.s.start, end: p.s.end, text: phpLiteral(message, p.s.raw) });
      }
      return splices;
    },
  });
};
