// Phrasebook: exact source segment -> translation per target language, from YAML or TSV.
//
// YAML: a mapping of source segment to a mapping of language code to translation
//   "Welcome to locsync.":
//     de: Willkommen bei locsync.
//     fr: Bienvenue dans locsync.
// TSV: a header line `source<TAB>de<TAB>fr...`, then one segment per line; \t, \n and \\ escape.
import { readFileSync } from 'node:fs';
import { isMap, isScalar, parseDocument } from 'yaml';
import { ConfigError } from '../../util/errors.js';

/** Lookup key: surrounding whitespace trimmed, inner runs of whitespace collapsed. */
export function phraseKey(segment: string): string {
  return segment.trim().replace(/\s+/g, ' ');
}

export class Phrasebook {
  private readonly entries = new Map<string, Map<string, string>>();

  get size(): number {
    return this.entries.size;
  }

  add(source: string, lang: string, translation: string): void {
    const key = phraseKey(source);
    if (!key) return;
    let langs = this.entries.get(key);
    if (!langs) this.entries.set(key, (langs = new Map()));
    langs.set(lang.toLowerCase(), translation);
    this.reverseIndex = undefined;
  }

  /** Translation of `segment` into `lang` (exact code first, then its base language, e.g. pt-br -> pt). */
  lookup(segment: string, lang: string): string | undefined {
    const langs = this.entries.get(phraseKey(segment));
    if (!langs) return undefined;
    const l = lang.toLowerCase();
    return langs.get(l) ?? langs.get(l.split('-')[0] as string);
  }

  /** The language of a known segment: the first language whose translation is the segment itself. */
  languageOf(segment: string): string | undefined {
    return this.reverse().get(phraseKey(segment));
  }

  private reverseIndex?: Map<string, string>;

  /** Every translation's text -> its language (the first language that has that text). */
  private reverse(): Map<string, string> {
    if (this.reverseIndex) return this.reverseIndex;
    const index = new Map<string, string>();
    for (const langs of this.entries.values())
      for (const [lang, text] of langs) {
        const key = phraseKey(text);
        if (!index.has(key)) index.set(key, lang.split('-')[0] as string);
      }
    this.reverseIndex = index;
    return index;
  }

  static load(path: string): Phrasebook {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`cannot read phrasebook: ${(err as Error).message}`, { file: path });
    }
    return /\.tsv$/i.test(path) ? Phrasebook.fromTsv(text, path) : Phrasebook.fromYaml(text, path);
  }

  static fromYaml(text: string, file = 'phrasebook'): Phrasebook {
    const book = new Phrasebook();
    const doc = parseDocument(text.replace(/^\uFEFF/, ''), { prettyErrors: false });
    const lineOf = (offset: number | undefined): number | undefined =>
      offset === undefined ? undefined : text.slice(0, offset).split('\n').length;
    const firstError = doc.errors[0];
    if (firstError) {
      throw new ConfigError(`invalid YAML: ${firstError.message.split('\n')[0]}`, {
        file,
        line: lineOf(firstError.pos[0]),
      });
    }
    if (doc.contents === null) return book;
    if (!isMap(doc.contents)) {
      throw new ConfigError('a phrasebook is a mapping of source segment to {language: translation}', {
        file,
        line: 1,
      });
    }
    for (const pair of doc.contents.items) {
      const source = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const line = lineOf(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
      if (source === undefined || !isMap(pair.value)) {
        throw new ConfigError('each phrasebook entry maps a source segment to {language: translation}', {
          file,
          line,
        });
      }
      for (const t of pair.value.items) {
        if (!isScalar(t.key) || !isScalar(t.value) || t.value.value === null) {
          throw new ConfigError(`entry "${source}": each language maps to a translation string`, {
            file,
            line,
          });
        }
        book.add(source, String(t.key.value), String(t.value.value));
      }
    }
    return book;
  }

  static fromTsv(text: string, file = 'phrasebook.tsv'): Phrasebook {
    const book = new Phrasebook();
    const unescape = (s: string): string =>
      s.replace(/\\([tn\\])/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    const header = (lines[0] ?? '').split('\t');
    if (header.length < 2) {
      throw new ConfigError('a TSV phrasebook starts with a header line: source<TAB>lang<TAB>lang...', {
        file,
        line: 1,
      });
    }
    lines.slice(1).forEach((line, i) => {
      if (!line.trim()) return;
      const cells = line.split('\t');
      if (cells.length > header.length) {
        throw new ConfigError(`line has ${cells.length} columns, the header has ${header.length}`, {
          file,
          line: i + 2,
        });
      }
      const source = unescape(cells[0] as string);
      cells.slice(1).forEach((cell, j) => {
        if (cell !== '') book.add(source, (header[j + 1] as string).trim(), unescape(cell));
      });
    });
    return book;
  }
}
