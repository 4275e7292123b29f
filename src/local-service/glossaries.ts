// What the v2 and v3 glossary routes share: glossary ids and languages, dictionaries read from JSON
// or form bodies, and the glossary a translation request names (glossary_id).
import { ApiError, badRequest, notFound } from './errors.js';
import {
  ENTRIES_FORMATS,
  GLOSSARY_LIMITS,
  parseGlossaryEntries,
  type EntriesFormat,
  type GlossaryTerms,
} from './glossary-entries.js';
import type { GlossaryDictionary, GlossaryRow, GlossaryStore } from './glossary-store.js';
import { baseLanguage } from '../documents/language-tag.js';
import { SOURCE_LANGUAGES } from './languages.js';
import { isObject, type Obj } from './validate.js';

/** Glossary languages: every source language (base codes); every ordered pair of two of them. */
export const GLOSSARY_LANGUAGES: readonly string[] = SOURCE_LANGUAGES.map((l) => l.toLowerCase());

/** Bodies of glossary requests: a dictionary of the largest size, form-encoded, and the rest. */
export const GLOSSARY_BODY_LIMIT = 3 * GLOSSARY_LIMITS.dictionaryBytes + 64 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The glossary of an id in a path: malformed ids are 400, unknown ones 404 (as the real service). */
export function findGlossary(store: GlossaryStore, id: string): GlossaryRow {
  if (!UUID.test(id))
    throw badRequest(`Invalid glossary_id '${id}': not a glossary id.`, 'invalid_glossary_id');
  const g = store.get(id);
  if (!g) throw notFound(`Glossary ${id} not found.`, 'glossary_not_found');
  return g;
}

/** A glossary language given as 'EN', 'en' or 'en-US': its lower-case base code, else 400. */
export function glossaryLanguage(value: unknown, field: string): string {
  if (value === undefined || value === null || value === '')
    throw badRequest(`Parameter '${field}' is required.`, 'missing_field');
  if (typeof value !== 'string') throw badRequest(`Parameter '${field}' must be a string.`, 'invalid_type');
  const base = baseLanguage(value);
  if (!GLOSSARY_LANGUAGES.includes(base))
    throw badRequest(`Value for '${field}' not supported for glossaries: ${value}`, 'unsupported_language');
  return base;
}

export function glossaryName(value: unknown): string {
  if (value === undefined || value === null || value === '')
    throw badRequest("Parameter 'name' is required and must not be empty.", 'missing_field');
  if (typeof value !== 'string') throw badRequest("Parameter 'name' must be a string.", 'invalid_type');
  if ([...value].length > GLOSSARY_LIMITS.nameMax)
    throw badRequest(`Parameter 'name' is longer than ${GLOSSARY_LIMITS.nameMax} characters.`, 'too_long');
  return value;
}

function entriesFormat(value: unknown): EntriesFormat {
  if (value === undefined || value === null || value === '') return 'tsv';
  if (typeof value !== 'string' || !(ENTRIES_FORMATS as readonly string[]).includes(value.toLowerCase()))
    throw badRequest(
      `Value for 'entries_format' not supported (one of tsv, csv): ${String(value)}`,
      'invalid_value',
    );
  return value.toLowerCase() as EntriesFormat;
}

/**
 * One dictionary of a request: source_lang, target_lang, entries (TSV or CSV text), entries_format.
 * Entries must not be empty (a glossary may have no dictionaries, a dictionary no entries: never).
 */
export function parseDictionary(o: Obj, where = ''): GlossaryDictionary {
  const source_lang = glossaryLanguage(o.source_lang, `${where}source_lang`);
  const target_lang = glossaryLanguage(o.target_lang, `${where}target_lang`);
  if (source_lang === target_lang)
    throw badRequest(
      `A glossary dictionary needs two different languages (${source_lang} -> ${target_lang}).`,
      'invalid_language_pair',
    );
  if (typeof o.entries !== 'string')
    throw badRequest(`Parameter '${where}entries' is required (TSV or CSV text).`, 'missing_field');
  const entries = parseGlossaryEntries(o.entries, entriesFormat(o.entries_format), {
    source: source_lang,
    target: target_lang,
  });
  if (entries.length === 0)
    throw badRequest(`Parameter '${where}entries' holds no entries.`, 'invalid_entries');
  return { source_lang, target_lang, entries };
}

/**
 * The `dictionaries` of a body: a JSON array, or form fields `dictionaries[0].source_lang` ... (the
 * official clients send form bodies). `undefined` when the body has none.
 */
export function bodyDictionaries(o: Obj): GlossaryDictionary[] | undefined {
  let raw: unknown[] | undefined;
  if (o.dictionaries !== undefined) {
    if (!Array.isArray(o.dictionaries))
      throw badRequest("Parameter 'dictionaries' must be an array.", 'invalid_type');
    raw = o.dictionaries;
  } else {
    const byIndex = new Map<number, Obj>();
    for (const [key, value] of Object.entries(o)) {
      const m = /^dictionaries\[(\d+)\]\.(\w+)$/.exec(key);
      if (!m) continue;
      const i = Number(m[1]);
      const d = byIndex.get(i) ?? {};
      d[m[2]!] = value;
      byIndex.set(i, d);
    }
    if (byIndex.size > 0) raw = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, d]) => d);
  }
  if (raw === undefined) return undefined;
  const dicts = raw.map((d, i) => {
    if (!isObject(d)) throw badRequest(`dictionaries[${i}] must be an object.`, 'invalid_type');
    return parseDictionary(d, `dictionaries[${i}].`);
  });
  const pairs = new Set<string>();
  for (const d of dicts) {
    const pair = `${d.source_lang}-${d.target_lang}`;
    if (pairs.has(pair))
      throw badRequest(`The language pair ${pair} is given twice.`, 'duplicate_language_pair');
    pairs.add(pair);
  }
  return dicts;
}

/**
 * The glossary entries a translation uses: `glossary_id` needs `source_lang`, the glossary must
 * exist and have a dictionary for the pair (base languages: a glossary into EN serves EN-GB too).
 */
export function resolveGlossary(
  store: GlossaryStore,
  glossaryId: unknown,
  sourceLang: string | undefined,
  targetLang: string,
): GlossaryTerms | undefined {
  if (glossaryId === undefined || glossaryId === null || glossaryId === '') return undefined;
  if (typeof glossaryId !== 'string')
    throw badRequest("Parameter 'glossary_id' must be a string.", 'invalid_type');
  if (!sourceLang)
    throw badRequest(
      'glossary_id requires source_lang (a glossary translates from one language).',
      'glossary_requires_source_lang',
    );
  if (!UUID.test(glossaryId)) throw badRequest(`Invalid glossary_id '${glossaryId}'.`, 'invalid_glossary_id');
  const g = store.get(glossaryId);
  if (!g) throw new ApiError(404, 'glossary_not_found', `Glossary ${glossaryId} not found.`);
  const source = baseLanguage(sourceLang);
  const target = baseLanguage(targetLang);
  const dict = g.dictionaries.find((d) => d.source_lang === source && d.target_lang === target);
  if (!dict)
    throw badRequest(
      `No dictionary found for language pair ${source.toUpperCase()} -> ${target.toUpperCase()} in glossary ${glossaryId}.`,
      'glossary_language_mismatch',
    );
  return dict.entries;
}
