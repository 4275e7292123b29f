// Android string resources (res/values/strings.xml): <string name>, <string-array name> items
// (key "colors[0]") and <plurals name> items (key "files (one)"); translatable="false" is left out
// and written as it is. Inline markup (<b>, <xliff:g>) and placeholders (%1$s) are code pieces; a
// value's Android escapes (\', \", \n, \@) and XML entities are decoded for translation and written
// back the same way, a value wrapped in double quotes stays wrapped. A target language with other
// plural forms (Russian: one, few, many, other) gets its own <item quantity> list (plurals.ts).
//
// Tokenised by xml.ts's offsets tokenizer and checked well-formed with saxes (like XLIFF), since
// the writer splices values at their offsets to keep every other byte.
import { DocumentFormatError } from '../../errors.js';
import { attribute, decodeXml, escapeXml, localName, type Splice, type XmlToken } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { readXmlFile } from './xml-file.js';
import { stringDocument, type StringEntry } from './keyed.js';
import { formsFor } from './plurals.js';

const TAG = /<\/?[A-Za-z][^<>]*>/g;

/** Android's backslash escapes, decoded. */
function unescapeAndroid(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (_m, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return c === 'n' ? '\n' : c === 't' ? '\t' : c;
  });
}

function escapeAndroid(s: string, quoted: boolean): string {
  const out = s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/"/g, '\\"');
  return quoted ? out : out.replace(/'/g, "\\'").replace(/^([@?])/, '\\$1');
}

/** Applies `f` to the text between tags of an inner XML string (the tags stay as they are). */
function mapText(xml: string, f: (text: string) => string): string {
  let out = '';
  let pos = 0;
  for (const m of xml.matchAll(TAG)) {
    out += f(xml.slice(pos, m.index)) + m[0];
    pos = m.index + m[0].length;
  }
  return out + f(xml.slice(pos));
}

/** A value's text and how to write a translation of it, from its inner XML. */
function valueOf(inner: string): { text: string; encode: (t: string) => string } {
  const trimmed = inner.trim();
  const quoted =
    trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') && !trimmed.endsWith('\\"');
  const body = quoted ? trimmed.slice(1, -1) : inner;
  const text = mapText(
    body.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_m, c: string) => escapeXml(c)),
    (t) => unescapeAndroid(decodeXml(t)),
  );
  const encode = (t: string): string => {
    const xml = mapText(t, (part) => escapeXml(escapeAndroid(part, quoted)));
    return quoted ? `"${xml}"` : xml;
  };
  return { text, encode };
}

/** Why an XML file whose root element is `root` is not an Android resource file (undefined: it is). */
export function notAndroidResources(root: string | undefined, what: string): string | undefined {
  if (root !== undefined && localName(root) === 'resources') return undefined;
  return `${what} is not an Android string resource file: its root element is <${root ?? 'none'}>, not <resources>`;
}

export const readAndroidStrings: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const { decoded, xml, tokens } = await readXmlFile(path, what);
  const root = tokens.find((t): t is Extract<XmlToken, { kind: 'open' }> => t.kind === 'open');
  const notResources = notAndroidResources(root?.name, what);
  if (notResources) throw new DocumentFormatError(notResources);
  const entries: StringEntry[] = [];
  const plurals: Array<{
    name: string;
    innerStart: number;
    innerEnd: number;
    items: Array<{ category: string; entry: StringEntry }>;
  }> = [];
  /** The open <string-array> or <plurals> and its name. */
  let group: { kind: string; name: string; start: number; items: number; translatable: boolean } | undefined;
  let capture:
    { name: string; key: string; innerStart: number; quantity?: string; translatable: boolean } | undefined;
  for (const t of tokens) {
    if (t.kind === 'open' && !capture) {
      const tag = xml.slice(t.start, t.end);
      const translatable = attribute(tag, 'translatable') !== 'false';
      const name = attribute(tag, 'name') ?? '';
      if ((t.name === 'string-array' || t.name === 'plurals') && !t.selfClosing) {
        group = { kind: t.name, name, start: t.end, items: 0, translatable };
        if (t.name === 'plurals') plurals.push({ name, innerStart: t.end, innerEnd: t.end, items: [] });
      } else if (t.name === 'string' && !t.selfClosing && !group) {
        capture = { name: 'string', key: name, innerStart: t.end, translatable };
      } else if (t.name === 'item' && !t.selfClosing && group) {
        const quantity = attribute(tag, 'quantity');
        const key =
          group.kind === 'plurals'
            ? `${group.name} (${quantity ?? group.items})`
            : `${group.name}[${group.items}]`;
        group.items++;
        capture = {
          name: 'item',
          key,
          innerStart: t.end,
          translatable: group.translatable && translatable,
          ...(quantity ? { quantity } : {}),
        };
      }
    } else if (t.kind === 'close') {
      if (capture && t.name === capture.name) {
        const inner = xml.slice(capture.innerStart, t.start);
        if (capture.translatable) {
          const { text, encode } = valueOf(inner);
          const entry: StringEntry = {
            key: capture.key,
            text,
            span: { start: capture.innerStart, end: t.start },
            encode,
          };
          entries.push(entry);
          if (capture.quantity && group?.kind === 'plurals')
            plurals[plurals.length - 1]?.items.push({ category: capture.quantity, entry });
        }
        capture = undefined;
      } else if (group && !capture && t.name === group.kind) {
        const last = plurals[plurals.length - 1];
        if (group.kind === 'plurals' && last) last.innerEnd = t.start;
        group = undefined;
      }
    }
  }
  /** A plural form the source has no item of (Russian `few` of an English `one, other`). */
  const added = (p: (typeof plurals)[number], category: string): string | undefined =>
    p.items.some((i) => i.category === category) ? undefined : `${p.name} (${category})`;
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: (lang) =>
      plurals.flatMap((p) =>
        (formsFor(p.items, lang) ?? []).flatMap(([c, donor]) => {
          const key = added(p, c);
          return key === undefined ? [] : [{ key, donor: donor.entry }];
        }),
      ),
    languageSplices: (lang, valueOfEntry) => {
      const splices: Splice[] = [];
      for (const p of plurals) {
        const forms = formsFor(p.items, lang);
        if (!forms) continue;
        const inner = xml.slice(p.innerStart, p.innerEnd);
        const lead = /^\s*/.exec(inner)?.[0] ?? '';
        const tail = /\s*$/.exec(inner)?.[0] ?? '';
        const items = forms.map(([c, donor]) => {
          const value = donor.entry.encode?.(valueOfEntry(donor.entry, added(p, c))) ?? '';
          return `<item quantity="${c}">${value}</item>`;
        });
        splices.push({ start: p.innerStart, end: p.innerEnd, text: lead + items.join(lead) + tail });
      }
      return splices;
    },
  });
};
