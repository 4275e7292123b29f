import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { languageInStyle } from '../language-tag.js';
import { decodeText } from '../formats/text-encoding.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// Apple String Catalogs: the source language's part of the catalog. One catalog holds every
// language, and locsync writes its targets into it (docs/strings/xcstrings.md): the other languages'
// `localizations` entries are not content of the source, so writing `de` into it (or a translator's
// `fr` edit) leaves its digest as it was, and it is not translated (billed) again. Each string's
// key, `shouldTranslate`, `comment`, `extractionState` and source localization are content; the
// layout (indent, key order, escapes) is not. Each string is a unit for `plan --why`.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with object keys sorted: the same value prints the same whatever its layout. */
function canonical(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k] as Json)}`).join(',')}}`;
}

const objectOf = (v: Json | undefined): Record<string, Json> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};

export async function digestXcstrings(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .xcstrings file');
  const root = objectOf(JSON.parse(text) as Json);
  const sourceLanguage = typeof root['sourceLanguage'] === 'string' ? root['sourceLanguage'] : '';
  const part = new PartHasher('strings');
  part.add(`sourceLanguage ${sourceLanguage}`);
  for (const [key, value] of Object.entries(objectOf(root['strings']))) {
    const { localizations, ...rest } = objectOf(value);
    const source = objectOf(localizations)[sourceLanguage];
    part.startUnit(`key ${key}`);
    part.add(`key ${key}`);
    part.add(canonical(rest));
    part.add(source === undefined ? 'no source localization' : canonical(source), true);
    part.endUnit();
  }
  return digestOf('xcstrings', [part.finish()]);
}

/**
 * The digest of one language's part of a catalog: each string's key and its `localizations.<lang>`
 * entry, as JSON data. What locsync wrote of a target into the catalog is this part: another
 * target written into the same file, or a translator's edit of another language, leaves it as it
 * was; a person's edit of this language's entries changes it (docs/strings/xcstrings.md).
 */
export async function digestXcstringsLanguage(path: string, lang: string): Promise<string> {
  const { text } = decodeText(await readFile(path), 'the .xcstrings file');
  const root = objectOf(JSON.parse(text) as Json);
  const tag = languageInStyle(lang, 'bcp47');
  const h = createHash('sha256');
  for (const [key, value] of Object.entries(objectOf(root['strings']))) {
    const entry = objectOf(objectOf(value)['localizations'])[tag];
    h.update(`${JSON.stringify(key)}\0${entry === undefined ? '-' : canonical(entry)}\n`);
  }
  return h.digest('hex');
}
