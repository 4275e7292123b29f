// Apple String Catalogs (.xcstrings, Xcode 15+): one JSON file holds every language of a table.
// Each string of the source language is a keyed value: its `stringUnit` (key "Open"), a plural form
// (key "%lld photos (one)"), a device variation ("Tap here [mac]") or a substitution's form
// ("%#@photos@ {photos} (few)"); a string with no source localization is its key. Strings marked
// `shouldTranslate: false` are not read. The writer sets the target language's `localizations`
// entry of each string (state `translated`, plural forms the target's CLDR categories) and keeps
// every other language, `comment`, `extractionState` and key as they are (docs/strings/xcstrings.md).
//
// Read with side 'target' and a language (the output checks), a catalog's values are that
// language's, where it has them.
import { readFile } from 'node:fs/promises';
import { DocumentFormatError } from '../../errors.js';
import { languageInStyle } from '../../language-tag.js';
import { decodeText } from '../text-encoding.js';
import type { FormatReader } from '../reader.js';
import { stringDocument, type AddedForm, type StringEntry } from './keyed.js';
import { formsFor } from './plurals.js';
import {
  member,
  parseXcodeJson,
  printXcodeJson,
  sortedObject,
  withMember,
  xcodeString,
  type JsonNode,
} from './xcode-json.js';

/** What a written unit is marked: locsync's QA and review stand where Xcode's review would. */
const WRITTEN_STATE = 'translated';

const stringValue = (node: JsonNode | undefined): string | undefined =>
  node?.kind === 'string' ? node.value : undefined;
const membersOf = (node: JsonNode | undefined) => (node?.kind === 'object' ? node.members : []);

/** The keyed values of one localization (a stringUnit, its variations, its substitutions). */
function collect(loc: JsonNode | undefined, key: string, out: StringEntry[]): void {
  const value = stringValue(member(member(loc, 'stringUnit'), 'value'));
  if (value !== undefined) out.push({ key, text: value });
  for (const kind of membersOf(member(loc, 'variations')))
    for (const v of membersOf(kind.value))
      collect(v.value, kind.key === 'plural' ? `${key} (${v.key})` : `${key} [${v.key}]`, out);
  for (const s of membersOf(member(loc, 'substitutions'))) collect(s.value, `${key} {${s.key}}`, out);
}

/** Each plural of a localization: the key its forms are named under and its forms by category. */
function pluralsOf(
  loc: JsonNode | undefined,
  key: string,
  out: Array<{ key: string; categories: string[] }>,
): void {
  for (const kind of membersOf(member(loc, 'variations'))) {
    if (kind.key === 'plural') out.push({ key, categories: membersOf(kind.value).map((m) => m.key) });
    for (const v of membersOf(kind.value))
      if (kind.key !== 'plural') pluralsOf(v.value, `${key} [${v.key}]`, out);
  }
  for (const s of membersOf(member(loc, 'substitutions'))) pluralsOf(s.value, `${key} {${s.key}}`, out);
}

export const readXcstrings: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const text = decoded.text;
  const { root, before, after } = parseXcodeJson(text, what);
  const sourceLanguage = stringValue(member(root, 'sourceLanguage'));
  const strings = member(root, 'strings');
  if (sourceLanguage === undefined || strings?.kind !== 'object')
    throw new DocumentFormatError(
      `${what} is not a String Catalog: it has no "sourceLanguage" and "strings"`,
    );
  const escapesSlash = text.includes('\\/');
  const str = (value: string) => xcodeString(value, escapesSlash);
  const readLang = ctx.side === 'target' && ctx.lang ? languageInStyle(ctx.lang, 'bcp47') : sourceLanguage;

  const entries: StringEntry[] = [];
  const byKey = new Map<string, StringEntry>();
  /** The strings that are translated, with their source localization (none: the key is the text). */
  const translated = new Map<string, JsonNode | undefined>();
  for (const { key, value } of strings.members) {
    const should = member(value, 'shouldTranslate');
    if (should?.kind === 'literal' && should.raw === 'false') continue;
    const locs = member(value, 'localizations');
    const source = member(locs, sourceLanguage);
    translated.set(key, source);
    const found: StringEntry[] = [];
    collect(member(locs, readLang) ?? source, key, found);
    if (!source && found.length === 0) found.push({ key, text: key });
    for (const e of found) {
      entries.push(e);
      byKey.set(e.key, e);
    }
  }

  /** A form a target adds: its key and the source form whose translation it takes. */
  const added = (lang: string): AddedForm[] =>
    [...translated].flatMap(([key, source]) => {
      const plurals: Array<{ key: string; categories: string[] }> = [];
      pluralsOf(source, key, plurals);
      return plurals.flatMap((p) =>
        (
          formsFor(
            p.categories.map((category) => ({ category })),
            lang,
          ) ?? []
        ).flatMap(([c, donor]) => {
          const entry = byKey.get(`${p.key} (${donor.category})`);
          return c === donor.category || !entry ? [] : [{ key: `${p.key} (${c})`, donor: entry }];
        }),
      );
    });

  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: added,
    languageSplices: (lang, valueOf) => {
      const valueFor = (key: string, form?: string): string => {
        const entry = byKey.get(key);
        return entry ? valueOf(entry, form) : key;
      };
      /** The target's localization, laid out as the source's (plural forms the target's). */
      const build = (loc: JsonNode | undefined, key: string, form?: string): JsonNode => {
        const out: Array<[string, JsonNode]> = [];
        if (!loc || member(loc, 'stringUnit'))
          out.push([
            'stringUnit',
            sortedObject([
              ['state', str(WRITTEN_STATE)],
              ['value', str(valueFor(key, form))],
            ]),
          ]);
        const variations = membersOf(member(loc, 'variations')).map(
          ({ key: kind, value }): [string, JsonNode] => {
            const forms = membersOf(value);
            if (kind !== 'plural')
              return [kind, sortedObject(forms.map((v) => [v.key, build(v.value, `${key} [${v.key}]`)]))];
            const laid =
              formsFor(
                forms.map((f) => ({ category: f.key, node: f.value })),
                lang,
              ) ?? forms.map((f) => [f.key, { category: f.key, node: f.value }] as const);
            return [
              kind,
              sortedObject(
                laid.map(([c, donor]) => [
                  c,
                  build(
                    donor.node,
                    `${key} (${donor.category})`,
                    c === donor.category ? undefined : `${key} (${c})`,
                  ),
                ]),
              ),
            ];
          },
        );
        if (variations.length) out.push(['variations', sortedObject(variations)]);
        const subs = membersOf(member(loc, 'substitutions')).map(
          ({ key: name, value }): [string, JsonNode] => {
            // argNum and formatSpecifier as they are; the forms of its variations the target's
            const kept = membersOf(value).filter((m) => m.key !== 'variations');
            const variationsOnly: JsonNode = {
              kind: 'object',
              members: membersOf(value).filter((m) => m.key === 'variations'),
            };
            const laid = membersOf(build(variationsOnly, `${key} {${name}}`));
            return [name, sortedObject([...kept, ...laid].map((m): [string, JsonNode] => [m.key, m.value]))];
          },
        );
        if (subs.length) out.push(['substitutions', sortedObject(subs)]);
        return sortedObject(out);
      };
      const tag = languageInStyle(lang, 'bcp47');
      if (tag === sourceLanguage) return [];
      const empty: JsonNode = { kind: 'object', members: [] };
      const written: JsonNode = {
        kind: 'object',
        members: strings.members.map((m) => {
          if (!translated.has(m.key)) return m; // shouldTranslate: false
          const locs = member(m.value, 'localizations') ?? empty;
          const target = build(translated.get(m.key), m.key);
          return { ...m, value: withMember(m.value, 'localizations', withMember(locs, tag, target)) };
        }),
      };
      const out = before + printXcodeJson(withMember(root, 'strings', written)) + after;
      return [{ start: 0, end: text.length, text: out }];
    },
  });
};
