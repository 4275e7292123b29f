// gettext catalogues: .pot templates and .po files. gettext-parser parses the catalogue (escapes,
// contexts, plurals, charset; its errors name the problem); each msgid is a keyed value (key: the
// msgid, "context | msgid" with a msgctxt) and a msgid_plural a second one ("... (plural)"). The
// writer replaces only each entry's msgstr lines: msgstr for a singular, msgstr[0..n-1] for a plural
// entry with the target language's count (plurals.ts), and the header's Language and Plural-Forms,
// so references, comments, flags other than `fuzzy` and the msgid lines stay byte for byte. A .pot
// is written as a .po.
//
// The msgstr lines are found by a scanner of our own: gettext-parser gives values without their
// places in the file, and its compiler re-wraps and re-orders every entry.
import { readFile } from 'node:fs/promises';
import { po as gettextPo } from 'gettext-parser';
import { DocumentFormatError } from '../../errors.js';
import { languageInStyle } from '../../language-tag.js';
import { decodeText } from '../text-encoding.js';
import type { Splice } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type StringEntry } from './keyed.js';
import { gettextPlurals } from './plurals.js';

interface PoField {
  name: string;
  raw: string[];
  /** Offsets of the field's first line start and last line end (without its line break). */
  start: number;
  end: number;
}

interface PoEntry {
  fields: PoField[];
  /** The `#,` flags line, if any. */
  flags?: { start: number; end: number; text: string };
}

/** Entries of a PO text with their fields' places (obsolete `#~` entries are left out). */
function scanEntries(text: string): PoEntry[] {
  const entries: PoEntry[] = [];
  let entry: PoEntry = { fields: [] };
  let field: PoField | undefined;
  const finish = (): void => {
    if (entry.fields.length) entries.push(entry);
    entry = { fields: [] };
    field = undefined;
  };
  const lineRe = /[^\r\n]*/g;
  for (let pos = 0; pos <= text.length;) {
    lineRe.lastIndex = pos;
    const line = (lineRe.exec(text) as RegExpExecArray)[0];
    const start = pos;
    const end = pos + line.length;
    pos = end + (text.startsWith('\r\n', end) ? 2 : 1);
    const trimmed = line.trim();
    const hasMsgstr = entry.fields.some((f) => f.name.startsWith('msgstr'));
    if (trimmed === '' || trimmed.startsWith('#')) {
      if (hasMsgstr) finish();
      field = undefined;
      if (trimmed.startsWith('#,')) entry.flags = { start, end, text: line };
      continue;
    }
    const keyword = /^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")\s*$/.exec(trimmed);
    if (keyword) {
      const name = keyword[1] as string;
      if (hasMsgstr && !name.startsWith('msgstr')) finish();
      field = { name, raw: [keyword[2] as string], start, end };
      entry.fields.push(field);
    } else if (trimmed.startsWith('"') && field) {
      field.raw.push(trimmed);
      field.end = end;
    }
  }
  finish();
  return entries;
}

const C_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '"': '"',
  '\\': '\\',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

/** The value of a field's quoted strings (C escapes), for finding its entry in the parsed catalogue. */
function unquote(raw: readonly string[]): string {
  return raw.map((r) => r.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => C_ESCAPES[c] ?? c)).join('');
}

/** A PO string: one quoted line, or "" and one line per line of the text (gettext's own layout). */
function quotePo(keyword: string, text: string, eol: string): string {
  const esc = (s: string): string =>
    `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')}"`;
  const lines = text.split(/(?<=\n)/);
  if (lines.length <= 1 || (lines.length === 2 && lines[1] === '')) return `${keyword} ${esc(text)}`;
  return [`${keyword} ""`, ...lines.filter((l) => l !== '').map(esc)].join(eol);
}

/** The header with Language and Plural-Forms of the target (added when missing) and a real charset. */
function headerFor(header: string, lang: string): string {
  const plurals = gettextPlurals(lang);
  const set: Record<string, string> = {
    Language: languageInStyle(lang, 'posix'),
    'Plural-Forms': `nplurals=${plurals.nplurals}; plural=${plurals.plural};`,
  };
  const lines = header.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  const done = new Set<string>();
  const out = lines.map((l) => {
    const name = /^([^:]+):/.exec(l)?.[1] ?? '';
    if (name in set) {
      done.add(name);
      return `${name}: ${set[name]}`;
    }
    if (name === 'Content-Type') return l.replace(/charset=CHARSET/i, 'charset=UTF-8');
    return l;
  });
  for (const [name, value] of Object.entries(set)) if (!done.has(name)) out.push(`${name}: ${value}`);
  return out.map((l) => `${l}\n`).join('');
}

/** A flags line without `fuzzy` (a new translation is not a guess), or '' when nothing is left. */
function withoutFuzzy(line: string): string {
  const flags = line
    .replace(/^#,/, '')
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f && f !== 'fuzzy');
  return flags.length ? `#, ${flags.join(', ')}` : '';
}

/** The key of a plural entry's msgstr[i] that is neither the singular's nor the last form. */
const formKey = (key: string, i: number): string => `${key} [${i}]`;

export const readPo: FormatReader = async (path, ctx) => {
  const buf = await readFile(path);
  const what = `the .${ctx.format} file`;
  let table: ReturnType<typeof gettextPo.parse>;
  try {
    table = gettextPo.parse(buf, { validation: false }); // a .pot's Plural-Forms is a template (nplurals=INTEGER);
  } catch (e) {
    throw new DocumentFormatError(`${what} is not a valid gettext catalogue: ${(e as Error).message}`);
  }
  // The header's charset, unless it is a template's "CHARSET" (gettext-parser then says latin-1).
  const declared = /charset=([\w.-]+)/i.exec(table.headers['Content-Type'] ?? '')?.[1];
  const decoded = decodeText(
    buf,
    what,
    declared && declared.toUpperCase() !== 'CHARSET' ? declared : undefined,
  );
  const text = decoded.text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // A translated catalogue's singular is the msgstr of n = 1 for its language (Arabic: msgstr[1]).
  const targetOne = gettextPlurals(table.headers['Language'] ?? '').one;
  const entries: StringEntry[] = [];
  const rewrites: Array<{ entry: PoEntry; singular?: StringEntry; plural?: StringEntry; header?: string }> =
    [];
  for (const scanned of scanEntries(text)) {
    const get = (name: string) => scanned.fields.find((f) => f.name === name);
    const idField = get('msgid');
    if (!idField) continue;
    const msgctxt = get('msgctxt');
    const parsed = table.translations[msgctxt ? unquote(msgctxt.raw) : '']?.[unquote(idField.raw)];
    if (!parsed)
      throw new DocumentFormatError(`${what}: could not place the entry at offset ${idField.start}`);
    if (parsed.msgid === '') {
      rewrites.push({ entry: scanned, header: parsed.msgstr[0] ?? '' });
      continue;
    }
    const key = parsed.msgctxt ? `${parsed.msgctxt} | ${parsed.msgid}` : parsed.msgid;
    const target = ctx.side === 'target';
    const last = parsed.msgstr.length - 1;
    const one = Math.min(targetOne, last);
    const singular: StringEntry = {
      key,
      text: target && parsed.msgstr[one] ? parsed.msgstr[one] : parsed.msgid,
    };
    entries.push(singular);
    let plural: StringEntry | undefined;
    if (parsed.msgid_plural !== undefined) {
      const translated = parsed.msgstr[last];
      plural = { key: `${key} (plural)`, text: target && translated ? translated : parsed.msgid_plural };
      entries.push(plural);
      // The target's other forms (Polish msgstr[1]): what a reviewer refines (addedForms below).
      if (target)
        parsed.msgstr.forEach((text, i) => {
          if (i !== one && i !== last && text) entries.push({ key: formKey(key, i), text });
        });
    }
    rewrites.push({ entry: scanned, singular, ...(plural ? { plural } : {}) });
  }
  /** msgstr[i] of a plural entry for `lang`: the singular's, the plural's, or an added form. */
  const formOf = (i: number, nplurals: number, one: number): 'singular' | 'plural' | 'added' =>
    i === one && nplurals > 1 ? 'singular' : i === nplurals - 1 ? 'plural' : 'added';
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: (lang) => {
      const { nplurals, one } = gettextPlurals(lang);
      return rewrites.flatMap(({ singular, plural }) =>
        plural && singular
          ? Array.from({ length: nplurals }, (_, i) => i)
              .filter((i) => formOf(i, nplurals, one) === 'added')
              .map((i) => ({ key: formKey(singular.key, i), donor: plural }))
          : [],
      );
    },
    languageSplices: (lang, valueOf) => {
      const plurals = gettextPlurals(lang);
      const splices: Splice[] = [];
      for (const { entry, singular, plural, header } of rewrites) {
        const strs = entry.fields.filter((f) => f.name.startsWith('msgstr'));
        const first = strs[0];
        const last = strs[strs.length - 1];
        if (!first || !last) continue;
        let lines: string;
        if (header !== undefined) lines = quotePo('msgstr', headerFor(header, lang), eol);
        else if (plural && singular) {
          const forms = Array.from({ length: plurals.nplurals }, (_, i) => {
            const form = formOf(i, plurals.nplurals, plurals.one);
            const value =
              form === 'singular'
                ? valueOf(singular)
                : valueOf(plural, form === 'added' ? formKey(singular.key, i) : undefined);
            return quotePo(`msgstr[${i}]`, value, eol);
          });
          lines = forms.join(eol);
        } else lines = quotePo('msgstr', singular ? valueOf(singular) : '', eol);
        splices.push({ start: first.start, end: last.end, text: lines });
        if (entry.flags && /\bfuzzy\b/.test(entry.flags.text)) {
          const kept = withoutFuzzy(entry.flags.text);
          const lineEnd = entry.flags.end + (kept ? 0 : text.startsWith('\r\n', entry.flags.end) ? 2 : 1);
          splices.push({ start: entry.flags.start, end: lineEnd, text: kept });
        }
      }
      return splices;
    },
  });
};
