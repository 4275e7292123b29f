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

  const isSource = (lang: string) => languageInStyle(lang, 'bcp47') === sourceLanguage;
  /**
   * A catalog with `lang`'s entries written: this one, or `other`, the catalog as it is on disk now
   * (every language in one file: the other targets written into it since this one was read stay).
   */
  const writeInto = (
    lang: string,
    valueOf: (entry: StringEntry, form?: string) => string,
    other?: string,
  ): string => {
    const into = other === undefined ? { root, before, after } : parseXcodeJson(other, what);
    const intoText = other ?? text;
    const tag = languageInStyle(lang, 'bcp47');
    const intoStrings = member(into.root, 'strings');
    if (intoStrings?.kind !== 'object')
      throw new DocumentFormatError(`${what} written into is not a String Catalog: it has no "strings"`);
    const build = targetLocalization(lang, valueOf, intoText.includes('\\/'));
    const empty: JsonNode = { kind: 'object', members: [] };
    const written: JsonNode = {
      kind: 'object',
      members: intoStrings.members.map((m) => {
        // shouldTranslate: false here, or a string the catalog read has not (added since): as it is
        const should = member(m.value, 'shouldTranslate');
        if (!translated.has(m.key) || (should?.kind === 'literal' && should.raw === 'false')) return m;
        const locs = member(m.value, 'localizations') ?? empty;
        const target = build(translated.get(m.key), m.key);
        return { ...m, value: withMember(m.value, 'localizations', withMember(locs, tag, target)) };
      }),
    };
    return into.before + printXcodeJson(withMember(into.root, 'strings', written)) + into.after;
  };

  /** The target's localization of a string, laid out as the source's (plural forms the target's). */
  const targetLocalization = (
    lang: string,
    valueOf: (entry: StringEntry, form?: string) => string,
    escapesSlash: boolean,
  ) => {
    const str = (value: string) => xcodeString(value, escapesSlash);
    const valueFor = (key: string, form?: string): string => {
      const entry = byKey.get(key);
      return entry ? valueOf(entry, form) : key;
    };
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
      const subs = membersOf(member(loc, 'substitutions')).map(({ key: name, value }): [string, JsonNode] => {
        // argNum and formatSpecifier as they are; the forms of its variations the target's
        const kept = membersOf(value).filter((m) => m.key !== 'variations');
        const variationsOnly: JsonNode = {
          kind: 'object',
          members: membersOf(value).filter((m) => m.key === 'variations'),
        };
        const laid = membersOf(build(variationsOnly, `${key} {${name}}`));
        return [name, sortedObject([...kept, ...laid].map((m): [string, JsonNode] => [m.key, m.value]))];
      });
      if (subs.length) out.push(['substitutions', sortedObject(subs)]);
      return sortedObject(out);
    };
    return build;
  };

  return stringDocument({
    format: ctx.format,
    decoded,
    entries,
    addedForms: added,
    languageSplices: (lang, valueOf) =>
      isSource(lang) ? [] : [{ start: 0, end: text.length, text: writeInto(lang, valueOf) }],
    languageInto: (other, lang, valueOf) => (isSource(lang) ? other : writeInto(lang, valueOf, other)),
  });
};

/**
 * The catalog `into` with `lang`'s entry of each of its strings taken from the catalog `from`
 * (`locsync outputs take-new` of a target written into its catalog): every other language, and a
 * string `from` has no entry of, as `into` has them.
 */
export function takeXcstringsLanguage(into: string, from: string, lang: string): string {
  const what = 'the .xcstrings file';
  const tag = languageInStyle(lang, 'bcp47');
  const target = parseXcodeJson(into, what);
  const strings = member(target.root, 'strings');
  const theirs = member(parseXcodeJson(from, what).root, 'strings');
  if (strings?.kind !== 'object') return into;
  const taken: JsonNode = {
    kind: 'object',
    members: strings.members.map((m) => {
      const entry = member(member(member(theirs, m.key), 'localizations'), tag);
      if (!entry) return m;
      const locs = member(m.value, 'localizations') ?? { kind: 'object', members: [] };
      return { ...m, value: withMember(m.value, 'localizations', withMember(locs, tag, entry)) };
    }),
  };
  return target.before + printXcodeJson(withMember(target.root, 'strings', taken)) + target.after;
}
