import fs from 'node:fs';
import path from 'node:path';
import { closest } from 'fastest-levenshtein';
import { extensionOf, isProseText } from '../documents/format-registry.js';
import { SOURCE_LANGUAGES } from '../manifest/sections/languages.js';
import { baseLanguage } from '../documents/language-tag.js';
import { reliableLanguage } from '../qa/language.js';
import { ConfigError } from '../util/errors.js';

// The source_lang `locsync init` writes. Without one the service guesses each document's language
// from its text, and a short document is guessed wrong (a two-word note taken for French fails its
// French target, on every run). So init always writes one: the --source-lang given, else the
// language the documents already in the source folder are reliably written in, else English; and
// it says which and why, in its output and in the file.

/** Text read from the sources for the guess, at most. */
const SAMPLE_BYTES = 64 * 1024;

/** Files looked at, at most (a folder of 100,000 files is not read through). */
const MAX_FILES = 200;

export interface ChosenSourceLang {
  lang: string;
  /** How it was chosen, for the output and the manifest's comment. */
  how: 'given' | 'detected' | 'default';
  /** The files its detection read (detected, or too little text in them to tell: default). */
  files?: number;
}

/** The source language from --source-lang, checked against the service's list. */
export function sourceLangOption(value: string): string {
  const lang = value.trim().toLowerCase();
  const known = SOURCE_LANGUAGES as readonly string[];
  if (known.includes(lang)) return lang;
  const base = baseLanguage(lang);
  const hint = known.includes(base)
    ? `a source language has no regional variant: write "${base}"`
    : `did you mean "${closest(lang, [...known])}"?`;
  throw new ConfigError(
    `--source-lang: "${lang}" is not a source language of the service; ${hint} (languages: ${known.join(', ')})`,
  );
}

/** Markup and markers stripped so that only words are left to read. */
function words(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\]\([^)]*\)/g, ' ')
    .replace(/[#*_>|[\]()-]+/g, ' ')
    .replace(/\d\d:\d\d:\d\d[,.]\d+/g, ' ');
}

/** Up to SAMPLE_BYTES of the readable documents under `dir`, and how many files they came from. */
function sample(dir: string): { text: string; files: number } {
  let text = '';
  let files = 0;
  let looked = 0;
  const walk = (at: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (text.length >= SAMPLE_BYTES || looked >= MAX_FILES) return;
      if (e.name.startsWith('.')) continue;
      const abs = path.join(at, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && isProseText(extensionOf(e.name))) {
        looked++;
        try {
          const fd = fs.openSync(abs, 'r');
          const buf = Buffer.alloc(SAMPLE_BYTES - text.length);
          const n = fs.readSync(fd, buf, 0, buf.length, 0);
          fs.closeSync(fd);
          text += words(buf.subarray(0, n).toString('utf8')) + '\n';
          files++;
        } catch {
          // An unreadable file tells nothing; the others may.
        }
      }
    }
  };
  walk(dir);
  return { text, files };
}

/** The source_lang to write: given, else read from the documents in `sourceDir`, else en. */
export async function chooseSourceLang(
  given: string | undefined,
  sourceDir: string,
): Promise<ChosenSourceLang> {
  if (given !== undefined) return { lang: sourceLangOption(given), how: 'given' };
  const { text, files } = sample(sourceDir);
  const read = files ? await reliableLanguage(text) : undefined;
  if (read && (SOURCE_LANGUAGES as readonly string[]).includes(read))
    return { lang: read, how: 'detected', files };
  return { lang: 'en', how: 'default', ...(files ? { files } : {}) };
}

/** Why init chose this source_lang (the manifest's comment and init's output say it). */
export function sourceLangWords(c: ChosenSourceLang, source: string): string {
  if (c.how === 'given') return 'as --source-lang says';
  if (c.how === 'detected')
    return `what the ${c.files} readable file(s) in ${source}/ are written in; --source-lang chooses`;
  const read = c.files
    ? `too little text in the ${c.files === 1 ? 'readable file' : `${c.files} readable files`} of ${source}/ to tell the language from`
    : `nothing in ${source}/ to tell the language from`;
  return `the default, with no --source-lang and ${read}; change it if the documents are in another language`;
}

/** A target in the source language would fail on every run ("Source and target language are equal"). */
export function checkTargetsDiffer(
  sourceLang: string,
  targets: string[],
  how: ChosenSourceLang['how'],
): void {
  const same = targets.filter((t) => baseLanguage(t) === baseLanguage(sourceLang));
  if (!same.length) return;
  const why =
    how === 'given'
      ? '--source-lang'
      : how === 'detected'
        ? 'the documents already in the source folder are written in it'
        : 'the default when --source-lang is not given';
  throw new ConfigError(
    `--targets: ${same.join(', ')} is the source language (${sourceLang}: ${why}); a document cannot be translated into its own language. Leave it out of --targets, or give --source-lang`,
  );
}
