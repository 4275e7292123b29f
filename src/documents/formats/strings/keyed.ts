// What every string resource format shares (JSON, YAML, PO, ARB, Android, iOS, .properties): a file
// is a list of keyed values at known places in its text. Each value with words in it is a segment
// (role 'string', where "key app.title") whose placeholders and markup are code pieces; the writer
// splices each translated value, encoded as the format wants it at that place, into the source
// text, so that every byte outside the values (indentation, quoting, comments, key order) stays.
// A format adds its own splices for what depends on the target language (a Rails root key, a PO
// header, plural forms).
import { readFile, writeFile } from 'node:fs/promises';
import type { OpenedDocument, TranslationOf, WriteOptions, WriteTarget } from '../../document.js';
import { comparePlaceholders, describePlaceholderProblems, protectPlaceholders } from '../../placeholders.js';
import type { Piece, Segment } from '../../segment.js';
import { decodeText, encodeTranslated, type DecodedText } from '../text-encoding.js';
import { applySplices, type Splice } from '../xml.js';
import { textsOut } from '../reader.js';
import { icuStructureProblem } from '../../icu-structure.js';
import { icuPluralsFor } from './plurals.js';

/** One keyed value of a string file. */
export interface StringEntry {
  /** The key as a person names it: "app.title", "files (one)", msgid "Open". Unique in a file. */
  readonly key: string;
  /** The value, decoded (escapes resolved). */
  readonly text: string;
  /** Where the encoded value is in the source text; none when a format's own splices write it. */
  readonly span?: { start: number; end: number };
  /** The value as the file writes it at `span` (quoted, escaped). */
  readonly encode?: (text: string) => string;
}

/**
 * What depends on the target language, given the value written for each entry. A plural form the
 * target adds (Russian `few` of an English `one, other`) is written with `valueOf(donor, formKey)`:
 * the donor's value unless a person's wording of that form is given (StringWriteOptions.forms).
 */
export type LanguageSplices = (
  lang: string,
  valueOf: (entry: StringEntry, form?: string) => string,
) => Splice[];

/** A plural form the target language adds to a source value: its key and the entry it takes its text from. */
export interface AddedForm {
  /** The form's key as the target file's reader names it: "photos (few)", "%d photo [1]". */
  key: string;
  donor: StringEntry;
}

export interface StringFileParts {
  format: string;
  decoded: DecodedText;
  /** The entries, or how to find them again for each walk (a file too large to keep them of: JSON). */
  entries: readonly StringEntry[] | (() => Iterable<StringEntry>);
  languageSplices?: LanguageSplices;
  /** Values are ICU messages: their plural branches become the target language's (plurals.ts). */
  icuPlurals?: boolean;
  /** The plural forms a target language adds (written by languageSplices). */
  addedForms?: (lang: string) => AddedForm[];
  /**
   * A format whose one file holds every language (.xcstrings): `other`, the text of such a file as
   * it is now, with the target language's values written into it (StringWriteOptions.into).
   */
  languageInto?: (
    other: string,
    lang: string,
    valueOf: (entry: StringEntry, form?: string) => string,
  ) => string;
}

export interface StringWriteOptions extends WriteOptions {
  /**
   * Values to write as they are instead of a translation, by key: what a person wrote in the
   * existing target file (keep-edits.ts decides which).
   */
  keep?: ReadonlyMap<string, string>;
  /**
   * Values of plural forms the target adds (StringDocument.addedForms), by form key: a reviewer's
   * wording, written instead of the donor's translation (docs/review.md).
   */
  forms?: ReadonlyMap<string, string>;
  /**
   * Each translated value was checked by the caller, who refuses the output it broke after it is
   * written (the segment path: ../../../sync/segments/broken-tags.ts): written as it is, not thrown.
   */
  valuesChecked?: boolean;
  /**
   * The file the target's values are written into instead of this document's own text: the one
   * file of a format that holds every language (.xcstrings), as it is on disk at write time, so the
   * other languages written into it since this document was read are kept.
   */
  into?: string;
}

/** A string file: a document whose segments are its keyed values. */
export interface StringDocument extends OpenedDocument {
  /** Every value by key, in file order (values without words included). */
  values(): ReadonlyMap<string, string>;
  /** The key of a segment (its `where` is "key " + key). */
  keyOf(segment: Segment): string;
  /**
   * The plural forms `lang` adds to this (source) file, each with the segment whose translation it
   * takes (forms whose donor has no words to translate are left out).
   */
  addedForms(lang: string): Array<{ key: string; where: string; donor: Segment }>;
  write(translationOf: TranslationOf, out: WriteTarget, opts: StringWriteOptions): Promise<void>;
}

/** A translation that lost or made up placeholders of its source: refused, nothing is written. */
export class PlaceholderCheckError extends Error {
  constructor(readonly problems: ReadonlyArray<{ key: string; problem: string }>) {
    super(
      `placeholders changed in ${problems.length} translated value${problems.length === 1 ? '' : 's'}: ${problems
        .slice(0, 5)
        .map((p) => `key ${p.key}: ${p.problem}`)
        .join('; ')}${problems.length > 5 ? '; ...' : ''}`,
    );
    this.name = 'PlaceholderCheckError';
  }
}

export function isStringDocument(doc: OpenedDocument): doc is StringDocument {
  return typeof (doc as Partial<StringDocument>).values === 'function';
}

export const KEY_PREFIX = 'key ';

/** True when a file writes non-ASCII characters as \\u escapes (it has some and no raw non-ASCII). */
export function writesUnicodeEscapes(text: string): boolean {
  return /\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])/.test(text) && !/[\u0080-\uffff]/.test(text);
}

/** An entry of a string file with its pieces and its segment (undefined: no words to translate). */
interface Slot {
  entry: StringEntry;
  pieces: Piece[];
  segment: Segment | undefined;
}

/**
 * The entries' slots, made as they are walked: a file's segments are not kept by the document (a
 * plan's price walks a 500,000-value file once, keeping none), but made again, with the same ids,
 * by each walk.
 */
function* slotsOf(entries: Iterable<StringEntry>, text: string): Generator<Slot> {
  let id = 0;
  const lines = lineCounter(text);
  for (const entry of entries) {
    const pieces = protectPlaceholders(entry.text);
    // A value with no word between its placeholders ("%Y-%m-%d", "{count}") has nothing to translate.
    const words = pieces.some((p) => !p.code && /\p{L}/u.test(p.text));
    const line = entry.span ? lines(entry.span.start) : undefined;
    const segment: Segment | undefined = words
      ? { id: id++, role: 'string', where: KEY_PREFIX + entry.key, pieces, ...(line ? { line } : {}) }
      : undefined;
    yield { entry, pieces, segment };
  }
}

/** The line (1-based) of an offset in `text`, counted on from the last offset asked (file order). */
function lineCounter(text: string): (offset: number) => number {
  let at = 0;
  let line = 1;
  return (offset) => {
    if (offset < at) [at, line] = [0, 1];
    for (let i = text.indexOf('\n', at); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
    at = offset;
    return line;
  };
}

export function stringDocument(parts: StringFileParts): StringDocument {
  const { format, decoded, languageSplices, languageInto, icuPlurals, addedForms } = parts;
  const listed = parts.entries;
  const each = (): Iterable<StringEntry> => (typeof listed === 'function' ? listed() : listed);
  const doc: OpenedDocument = {
    format,
    keepsLayout: true,
    outputFormats: [format === 'pot' ? 'po' : format],
    async *segments() {
      for (const { segment } of slotsOf(each(), decoded.text)) if (segment) yield segment;
    },
    async write(translationOf, out, opts: StringWriteOptions) {
      const written = new Map<StringEntry, string>();
      const problems: Array<{ key: string; problem: string }> = [];
      for (const { entry, pieces, segment } of slotsOf(each(), decoded.text)) {
        const kept = opts.keep?.get(entry.key);
        const value = kept ?? textsOut(segment, pieces, translationOf).join('');
        const problem =
          kept === undefined
            ? (icuStructureProblem(entry.text, value, opts.targetLang) ??
              describePlaceholderProblems(comparePlaceholders(entry.text, value)))
            : '';
        if (problem) problems.push({ key: entry.key, problem });
        written.set(entry, icuPlurals && kept === undefined ? icuPluralsFor(value, opts.targetLang) : value);
      }
      if (problems.length && !opts.valuesChecked) throw new PlaceholderCheckError(problems);
      const valueOf = (e: StringEntry, form?: string): string =>
        (form === undefined ? undefined : opts.forms?.get(form)) ?? written.get(e) ?? e.text;
      if (opts.into !== undefined) {
        if (!languageInto)
          throw new Error(`a .${format} file holds one language: nothing is written into another`);
        const into = decodeText(await readFile(opts.into), `the .${format} file`);
        const text = languageInto(into.text, opts.targetLang, valueOf);
        await writeFile(out.path, encodeTranslated(text, into));
        return;
      }
      const splices: Splice[] = languageSplices?.(opts.targetLang, valueOf) ?? [];
      // A value written as it was keeps its source bytes (its escapes and quoting).
      for (const [entry, value] of written)
        if (entry.span && entry.encode && value !== entry.text)
          splices.push({ ...entry.span, text: entry.encode(value) });
      await writeFile(out.path, encodeTranslated(applySplices(decoded.text, splices), decoded));
    },
  };
  return {
    ...doc,
    values: () => new Map([...each()].map((e) => [e.key, e.text])),
    keyOf: (segment) => segment.where.slice(KEY_PREFIX.length),
    addedForms: (lang) => {
      const forms = addedForms?.(lang) ?? [];
      if (!forms.length) return [];
      const segmentOf = new Map<StringEntry, Segment | undefined>();
      for (const { entry, segment } of slotsOf(each(), decoded.text)) segmentOf.set(entry, segment);
      return forms.flatMap(({ key, donor }) => {
        const segment = segmentOf.get(donor);
        return segment ? [{ key, where: KEY_PREFIX + key, donor: segment }] : [];
      });
    },
  };
}
