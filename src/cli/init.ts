import fs from 'node:fs';
import path from 'node:path';
import { closest } from 'fastest-levenshtein';
import { checkManifestFile } from '../manifest/load.js';
import { isInside, outputRoot } from '../manifest/paths.js';
import { TARGET_LANGUAGES } from '../manifest/sections/languages.js';
import { ConfigError } from '../util/errors.js';
import { checkTargetsDiffer, chooseSourceLang, sourceLangWords } from './init-source-lang.js';

interface InitOptions {
  source: string;
  targets: string;
  output: string;
  sourceLang?: string;
  file: string;
  force?: boolean;
  json?: boolean;
}

/** Target languages from "de,fr" (lower-cased), each checked against the service's list. */
export function parseTargets(value: string): string[] {
  const langs = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!langs.length)
    throw new ConfigError('--targets: give at least one target language, e.g. --targets de,fr');
  const known = TARGET_LANGUAGES as readonly string[];
  for (const l of langs) {
    if (!known.includes(l))
      throw new ConfigError(
        `--targets: "${l}" is not a target language of the service; did you mean "${closest(l, [...known])}"? (languages: ${known.join(', ')})`,
      );
  }
  return [...new Set(langs)];
}

const yamlString = (s: string) => JSON.stringify(s);

/** `text` as YAML comment lines of at most 100 columns, each starting with `indent`. */
function comment(text: string, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + 2 + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => `${indent}# ${l}`).join('\n');
}

/** The commented starter manifest. */
export function starterManifest(opts: {
  source: string;
  targets: string[];
  output: string;
  sourceLang: string;
  /** How source_lang was chosen, for its comment. */
  sourceLangWhy: string;
}): string {
  const targets = opts.targets.map((l) => `      - lang: ${l}`).join('\n');
  return `# locsync pipeline manifest, written by \`locsync init\`. Paths are relative to this file.
# Check it:          locsync validate
# See what it does:  locsync plan
# Run it:            locsync sync
# (locsync installed from its checkout: see "Install" in its README.)
# Every setting: docs/manifest.md of locsync (or schema/pipeline.schema.json for your editor).
version: 1

service:
  # Leave url out to use the embedded local service: it pseudo-localises on this machine, with no
  # account and no network, so you can try the whole pipeline first. For the real service:
  # url: https://api.example.com
  # plan: pro # pro | free (the free plan has no style lists)
  key_env: LOCSYNC_API_KEY # environment variable holding the API key; never write the key here
  concurrency: 4 # documents in flight at once

# SQLite state (what was translated, uploads in flight). Keep it on a local disk, not on SMB/NFS.
state: .locsync/state.db
on_source_delete: keep # keep | delete the translations of deleted source files
max_attempts: 3 # a document that keeps failing is left alone after this many runs

watch: # \`locsync watch\` only
  poll: false # set true when the folders are on a shared drive (SMB/NFS send no change events)
  interval: 5 # polling interval, seconds

# Style rule lists (pro plan), kept in git and applied by \`locsync sync\`:
# style_lists:
#   de-docs:
#     name: Our German style
#     language: de
#     configured_rules:
#       dates_and_times: { time_format: use_24_hour_clock }
# and on a target:  - lang: de
#                     style: de-docs

mappings:
  - name: docs
    source: ${yamlString(opts.source)} # folder of documents to translate
    include: ['**/*']
    exclude: []
${comment(`The language the sources are written in. Left out, the service guesses it per document, and guesses a short one wrong. \`locsync init\` wrote ${opts.sourceLang}: ${opts.sourceLangWhy}.`, '    ')}
    source_lang: ${opts.sourceLang}
    # Placeholders: {lang} {LANG} {path} {dir} {name} {stem} {ext} {mapping}
    output: ${yamlString(opts.output)}
    targets:
${targets}
`;
}

/**
 * The .gitignore line of the folder every output lands in (its output root, `out/`), or undefined
 * when outputs go beside their sources or outside the manifest's folder (nothing to ignore as a whole).
 */
export function ignoredOutputFolder(pattern: string): string | undefined {
  const root = outputRoot(pattern);
  return root !== '.' && isInside('.', root) ? `${root}/` : undefined;
}

/**
 * Add the state folder and the output folder to the .gitignore beside the manifest (created when
 * missing; lines already there are kept and not repeated). Returns the lines added.
 */
export function updateGitignore(dir: string, output: string): string[] {
  const file = path.join(dir, '.gitignore');
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const have = new Set(existing.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '')));
  const root = ignoredOutputFolder(output);
  const wanted = ['.locsync/', ...(root ? [root] : [])].filter((l) => !have.has(l));
  if (!wanted.length) return [];
  const block = `# locsync: the state (SQLite, never shared) and the translated outputs it writes\n${wanted.map((l) => `/${l}`).join('\n')}\n`;
  fs.writeFileSync(file, existing + (existing && !existing.endsWith('\n') ? '\n' : '') + block);
  return wanted;
}

export async function initAction(opts: InitOptions & { config: string }): Promise<void> {
  const targets = parseTargets(opts.targets);
  const file = path.resolve(opts.config);
  if (fs.existsSync(file) && !opts.force)
    throw new ConfigError(`${opts.config} already exists; not overwritten (use --force to replace it)`);
  const sourceAbs = path.resolve(path.dirname(file), opts.source);
  const chosen = await chooseSourceLang(opts.sourceLang, sourceAbs);
  checkTargetsDiffer(chosen.lang, targets, chosen.how);
  const sourceLangWhy = sourceLangWords(chosen, opts.source);
  const previous = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  fs.writeFileSync(
    file,
    starterManifest({
      source: opts.source,
      targets,
      output: opts.output,
      sourceLang: chosen.lang,
      sourceLangWhy,
    }),
  );
  const { errors } = await checkManifestFile(file);
  if (errors.length) {
    if (previous) fs.writeFileSync(file, previous);
    else fs.rmSync(file);
    throw new ConfigError(
      `the flags make an invalid manifest, nothing written:\n${errors.map((e) => `  ${e.message}`).join('\n')}`,
    );
  }
  const ignored = updateGitignore(path.dirname(file), opts.output);
  // The source folder is made now: a missing one fails validate and every run (a typo is not "nothing to do").
  const sourceCreated = !fs.existsSync(sourceAbs);
  if (sourceCreated) fs.mkdirSync(sourceAbs, { recursive: true });
  if (opts.json) {
    process.stdout.write(
      JSON.stringify(
        {
          manifest: file,
          source: opts.source,
          output: opts.output,
          targets,
          sourceLang: chosen.lang,
          sourceLangChosen: chosen.how,
          gitignore: ignored,
          sourceCreated,
        },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  const lines = [
    `Wrote ${opts.config}: ${opts.source}/ -> ${opts.output} for ${targets.join(', ')}.`,
    `Source language: ${chosen.lang} (${sourceLangWhy}).`,
  ];
  if (ignored.length) lines.push(`Added to .gitignore: ${ignored.join(' ')}`);
  if (sourceCreated) lines.push(`Created the folder ${opts.source}/: put the documents to translate in it.`);
  lines.push(
    `Next: \`locsync plan -c ${opts.config}\` shows what would be translated; \`locsync sync -c ${opts.config}\` does it.`,
  );
  process.stdout.write(lines.join('\n') + '\n');
}
