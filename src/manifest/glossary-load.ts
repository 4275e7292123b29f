import path from 'node:path';
import {
  checkEntries,
  formatOfFile,
  parseEntries,
  type EntryRow,
  type HeaderRule,
} from './glossary-entries.js';
import { ConfigError } from '../util/errors.js';
import type { Manifest } from './schema.js';
import { GLOSSARY_PAIR_PATTERN } from './sections/glossary.js';
import { SOURCE_LANGUAGES } from './sections/languages.js';
import { projectRoot, readProjectFile } from './project-file.js';
import { didYouMean } from './suggest.js';
import type { ResolvedDictionary, ResolvedGlossary } from './types.js';
import type { YamlSource } from './yaml-source.js';

// Glossaries of a schema-valid manifest: inline entries and the CSV/TSV files kept in git, read and
// checked entry by entry, every problem located at its file and line. A file's first row may name
// its columns (source,target): skipped as a header, with a note (the glossary's `header` decides).

/** Why a language pair cannot be a glossary dictionary ('' when it can). */
export function pairProblem(pair: string): string {
  const m = GLOSSARY_PAIR_PATTERN.exec(pair);
  if (!m) return `'${pair}' is not a language pair (source-target, e.g. en-de)`;
  const langs = SOURCE_LANGUAGES as readonly string[];
  for (const lang of [m[1]!, m[2]!]) {
    if (!langs.includes(lang))
      return `'${pair}': the service has no glossaries for '${lang}'${didYouMean(lang, langs)}; glossary languages: ${langs.join(', ')}`;
  }
  if (m[1] === m[2]) return `'${pair}': source and target language are the same`;
  return '';
}

function splitPair(pair: string): { source_lang: string; target_lang: string } {
  const [source_lang, target_lang] = pair.split('-') as [string, string];
  return { source_lang, target_lang };
}

/** Where a file dictionary is and what to do with its first row. */
interface FileDictionary {
  key: string;
  pair: string;
  rel: string;
  header: HeaderRule;
}

async function fileDictionary(
  { key, pair, rel, header }: FileDictionary,
  source: YamlSource,
  dir: string,
  found: { errors: ConfigError[]; notes: ConfigError[] },
): Promise<ResolvedDictionary | undefined> {
  const { errors } = found;
  const at = ['glossaries', key, 'files', pair];
  const where = `glossaries.${key}.files.${pair}`;
  const format = formatOfFile(rel);
  if (!format) {
    errors.push(source.errorAt(at, `${where}: '${rel}' must be a .csv or .tsv file`));
    return undefined;
  }
  const file = path.resolve(dir, rel);
  const read = await readProjectFile(file, projectRoot(dir));
  if ('problem' in read) {
    errors.push(source.errorAt(at, `${where}: glossary file '${rel}' ${read.problem} (looked for ${file})`));
    return undefined;
  }
  const text = read.text;
  const langs = splitPair(pair);
  const { rows, problems, header: skipped } = parseEntries(text, format, langs, header);
  if (skipped && header === 'auto')
    found.notes.push(
      new ConfigError(
        `glossary '${key}' (${pair}): the first line (${skipped.fields.slice(0, 2).join(format === 'csv' ? ',' : '<TAB>')}) names the columns: skipped as a header, not an entry (set header: false on the glossary if it is a real term)`,
        { file, line: skipped.line },
      ),
    );
  for (const p of problems)
    errors.push(new ConfigError(`glossary '${key}' (${pair}): ${p.message}`, { file, line: p.line }));
  if (rows.length === 0 && problems.length === 0)
    errors.push(
      new ConfigError(`glossary '${key}' (${pair}): the file has no entries (source,target per line)`, {
        file,
      }),
    );
  if (problems.length || rows.length === 0) return undefined;
  return { ...langs, entries: toMap(rows), file, format, yamlPath: [], header };
}

function toMap(rows: EntryRow[]): Map<string, string> {
  return new Map(rows.map((r) => [r.source, r.target]));
}

function inlineDictionary(
  key: string,
  pair: string,
  terms: Record<string, string>,
  source: YamlSource,
  errors: ConfigError[],
): ResolvedDictionary | undefined {
  const at = ['glossaries', key, 'entries', pair];
  // Line of each entry: its term's key in the manifest (errors point at the key).
  const rows = Object.entries(terms).map(([s, t]) => ({
    source: s,
    target: t,
    line: source.errorAt([...at, s], '', { key: true }).line ?? 1,
  }));
  const problems = checkEntries(rows);
  for (const p of problems) {
    const row = rows.find((r) => r.line === p.line)!;
    errors.push(
      source.errorAt([...at, row.source], `glossaries.${key}.entries.${pair}: ${p.message}`, { key: true }),
    );
  }
  if (rows.length === 0)
    errors.push(
      source.errorAt(at, `glossaries.${key}.entries.${pair}: no entries (source term: target term)`),
    );
  if (problems.length || rows.length === 0) return undefined;
  return {
    ...splitPair(pair),
    entries: toMap(rows),
    file: source.file,
    format: 'yaml',
    yamlPath: at,
    header: false,
  };
}

/**
 * The manifest's glossaries; problems go to `errors` (a glossary with any is left out), what was
 * done that a person should know (a header row skipped) to `notes`.
 */
export async function loadGlossaries(
  manifest: Manifest,
  source: YamlSource,
  dir: string,
  errors: ConfigError[],
  notes: ConfigError[] = [],
): Promise<Record<string, ResolvedGlossary>> {
  const out: Record<string, ResolvedGlossary> = {};
  for (const [key, body] of Object.entries(manifest.glossaries)) {
    const before = errors.length;
    const dictionaries: Record<string, ResolvedDictionary> = {};
    const pairs = [...Object.keys(body.entries), ...Object.keys(body.files)];
    if (pairs.length === 0)
      errors.push(
        source.errorAt(
          ['glossaries', key],
          `glossaries.${key}: no entries; give entries (inline, per language pair) or files (CSV/TSV per language pair)`,
        ),
      );
    for (const [pair, terms] of Object.entries(body.entries)) {
      const problem = pairProblem(pair);
      if (problem) {
        errors.push(
          source.errorAt(['glossaries', key, 'entries', pair], `glossaries.${key}.entries: ${problem}`, {
            key: true,
          }),
        );
        continue;
      }
      const d = inlineDictionary(key, pair, terms, source, errors);
      if (d) dictionaries[pair] = d;
    }
    for (const [pair, rel] of Object.entries(body.files)) {
      const problem = pairProblem(pair);
      if (problem) {
        errors.push(
          source.errorAt(['glossaries', key, 'files', pair], `glossaries.${key}.files: ${problem}`, {
            key: true,
          }),
        );
        continue;
      }
      if (Object.hasOwn(body.entries, pair)) {
        errors.push(
          source.errorAt(
            ['glossaries', key, 'files', pair],
            `glossaries.${key}: the pair ${pair} is given twice (in entries and in files); keep one`,
            { key: true },
          ),
        );
        continue;
      }
      const header = body.header ?? 'auto';
      const d = await fileDictionary({ key, pair, rel, header }, source, dir, { errors, notes });
      if (d) dictionaries[pair] = d;
    }
    if (errors.length === before) out[key] = { key, name: body.name ?? key, drift: body.drift, dictionaries };
  }
  return out;
}
