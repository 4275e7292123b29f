// iOS / macOS .stringsdict files (XML property lists of plural rules): each entry's
// NSStringLocalizedFormatKey (key "files_count") and each plural form of its variables (key
// "files_count.files (one)") are keyed values; NSStringFormatSpecTypeKey and
// NSStringFormatValueTypeKey stay as they are. A target language with other plural forms gets its
// own list of forms (plurals.ts), laid out like the source's.
//
// Tokenised by xml.ts (offsets; well-formedness by saxes): no installed plist library reports
// where a value is, and the writer splices values in place.
import { DocumentFormatError } from '../../errors.js';
import { decodeXml, escapeXml, type Splice, type XmlToken } from '../xml.js';
import type { FormatReader } from '../reader.js';
import { readXmlFile } from './xml-file.js';
import { stringDocument, type StringEntry } from './keyed.js';
import { formsFor } from './plurals.js';

const KEEP = new Set(['NSStringFormatSpecTypeKey', 'NSStringFormatValueTypeKey']);
const CATEGORIES = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);

interface Dict {
  path: string[];
  pendingKey?: { name: string; start: number };
  /** Plural forms of a variable dict: category, where its <key> starts and its <string> ends. */
  forms: Array<{ category: string; start: number; end: number; entry: StringEntry }>;
  isVariable: boolean;
}

export const readStringsdict: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const { decoded, xml, tokens } = await readXmlFile(path, what);
  if (!tokens.some((t) => t.kind === 'open' && t.name === 'plist'))
    throw new DocumentFormatError(`${what} is not a property list: it has no <plist> element`);
  const entries: StringEntry[] = [];
  const stack: Dict[] = [];
  const variables: Dict[] = [];
  const encode = (t: string): string => escapeXml(t);
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as XmlToken;
    const top = stack[stack.length - 1];
    if (t.kind === 'open' && t.name === 'dict' && !t.selfClosing) {
      const path = top?.pendingKey ? [...top.path, top.pendingKey.name] : (top?.path ?? []);
      if (top) delete top.pendingKey;
      stack.push({ path, forms: [], isVariable: false });
    } else if (t.kind === 'close' && t.name === 'dict') {
      const done = stack.pop();
      if (done?.isVariable) variables.push(done);
    } else if (t.kind === 'open' && (t.name === 'key' || t.name === 'string') && !t.selfClosing && top) {
      const close = tokens.findIndex((c, j) => j > k && c.kind === 'close' && c.name === t.name);
      if (close === -1) continue;
      const closeTok = tokens[close] as XmlToken;
      const inner = xml.slice(t.end, closeTok.start);
      k = close;
      if (t.name === 'key') {
        top.pendingKey = { name: decodeXml(inner), start: t.start };
        if (top.pendingKey.name === 'NSStringFormatSpecTypeKey') top.isVariable = true;
        continue;
      }
      const key = top.pendingKey;
      delete top.pendingKey;
      if (!key || KEEP.has(key.name)) continue;
      const name =
        key.name === 'NSStringLocalizedFormatKey'
          ? top.path.join('.')
          : `${top.path.join('.')} (${key.name})`;
      const entry: StringEntry = {
        key: name,
        text: decodeXml(inner),
        span: { start: t.end, end: closeTok.start },
        encode,
      };
      entries.push(entry);
      if (CATEGORIES.has(key.name))
        top.forms.push({ category: key.name, start: key.start, end: closeTok.end, entry });
    } else if (t.kind === 'open' && t.selfClosing && top?.pendingKey) delete top.pendingKey;
  }
  /** A plural form the source's variable has no <key> of (Polish `few` of an English `one, other`). */
  const added = (v: Dict, category: string): string | undefined =>
    v.forms.some((f) => f.category === category) ? undefined : `${v.path.join('.')} (${category})`;
  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: (lang) =>
      variables.flatMap((v) =>
        (formsFor(v.forms, lang) ?? []).flatMap(([c, donor]) => {
          const key = added(v, c);
          return key === undefined ? [] : [{ key, donor: donor.entry }];
        }),
      ),
    languageSplices: (lang, valueOf) => {
      const splices: Splice[] = [];
      for (const v of variables) {
        const first = v.forms[0];
        const last = v.forms[v.forms.length - 1];
        if (!first || !last) continue;
        const forms = formsFor(v.forms, lang);
        if (!forms) continue;
        const firstPair = xml.slice(first.start, first.end);
        const between = /<\/key>(\s*)<string>/.exec(firstPair)?.[1] ?? '';
        const next = v.forms[1];
        const lineStart = xml.lastIndexOf('\n', first.start);
        const sep = next ? xml.slice(first.end, next.start) : `\n${xml.slice(lineStart + 1, first.start)}`;
        const pairs = forms.map(
          ([c, donor]) =>
            `<key>${c}</key>${between}<string>${escapeXml(valueOf(donor.entry, added(v, c)))}</string>`,
        );
        splices.push({ start: first.start, end: last.end, text: pairs.join(sep) });
      }
      return splices;
    },
  });
};
