import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { extensionOf, languageParts } from '../documents/format-registry.js';
import { outputFile, outputLanguage } from '../manifest/in-place-output.js';
import { loadManifest } from '../manifest/load.js';
import { acceptSegmentConflicts, keepSegmentConflicts } from '../sync/segments-written.js';
import { besidePath, freeBackupTag, taggedPath } from '../sync/run/edited-output.js';
import { ConfigError, EXIT } from '../util/errors.js';

// `locsync outputs keep|take-new <output>`: resolve the conflict between an output a person edited
// and the new translation written beside it (src/sync/run/edited-output.ts). Files only: the state
// keeps the record of the new translation, so that an output kept as edited stays protected.

interface OutputsOptions {
  config: string;
}

/** An output named on the command line: absolute, and relative to the manifest folder (the state's key). */
async function outputOf(
  output: string,
  opts: OutputsOptions,
): Promise<{ abs: string; rel: string; beside: string; stateFolder: string }> {
  const loaded = await loadManifest(opts.config);
  const given = path.resolve(output);
  // An output named relative to the manifest folder is found too.
  const abs = fs.existsSync(given) ? given : path.resolve(loaded.dir, output);
  const rel = path.relative(loaded.dir, abs).split(path.sep).join('/');
  return { abs, rel, beside: besidePath(abs), stateFolder: path.dirname(loaded.statePath) };
}

/** Neither a new translation beside it nor a conflict of its segments: nothing to resolve. */
function nothingToResolve(output: string, beside: string): ConfigError {
  return new ConfigError(
    `${output}: no new translation beside it (${path.basename(beside)}): nothing to resolve (\`locsync status\` lists the conflicts)`,
  );
}

/**
 * `outputs keep`: the person's version wins; the new translation beside it is removed. On the
 * segment path the person's wording of segments whose source changed stands, reviewed against the
 * new source (the next delivery writes it again).
 */
export async function outputsKeepAction(output: string, opts: OutputsOptions): Promise<void> {
  const o = await outputOf(output, opts);
  const hasBeside = fs.existsSync(o.beside);
  const segments = await keepSegmentConflicts(o.stateFolder, o.rel);
  if (!hasBeside && !segments) throw nothingToResolve(output, o.beside);
  if (hasBeside) await fsp.rm(o.beside);
  process.stdout.write(
    segments
      ? `kept ${output}: the person's wording of its segments whose source changed stands, reviewed against the new source${hasBeside ? `; removed the new translation ${path.basename(o.beside)}` : ''}\n`
      : `kept ${output} as edited; removed the new translation ${path.basename(o.beside)} (a later source change is written beside it again)\n`,
  );
  process.exitCode = EXIT.ok;
}

/**
 * A language's part of an in-place file (an .xcstrings catalog holding every language): the file
 * as edited is copied to `backup`, and only that language's entries are taken from the new
 * translation beside it; the other languages, written into the file since, stay.
 */
async function takeLanguagePart(part: string, beside: string, backup: string, lang: string): Promise<void> {
  const file = outputFile(part);
  const parts = await languageParts(extensionOf(file));
  const [now, taken] = [await fsp.readFile(file, 'utf8'), await fsp.readFile(beside, 'utf8')];
  await fsp.copyFile(file, backup);
  const written = `${file}.locsync-take`;
  await fsp.writeFile(written, parts.take(now, taken, lang));
  await fsp.rename(written, file);
  await fsp.rm(beside);
}

/** `outputs take-new`: the new translation wins; the person's version is kept as a backup file. */
export async function outputsTakeNewAction(output: string, opts: OutputsOptions): Promise<void> {
  const o = await outputOf(output, opts);
  const hasBeside = fs.existsSync(o.beside);
  const segments = await acceptSegmentConflicts(o.stateFolder, o.rel);
  if (!hasBeside && !segments) throw nothingToResolve(output, o.beside);
  if (!hasBeside) {
    // A record of an older version: the new machine translation is in the output already.
    process.stdout.write(
      `${output}: the new translations of its reviewed segments whose source changed stand; the conflict is resolved\n`,
    );
    process.exitCode = EXIT.ok;
    return;
  }
  // A backup name not taken yet: guide.locsync-edited.docx, then guide.locsync-edited-2.docx ...
  const backup = taggedPath(o.abs, freeBackupTag(o.abs));
  const lang = outputLanguage(o.rel);
  if (lang !== undefined) {
    await takeLanguagePart(o.abs, o.beside, backup, lang);
    process.stdout.write(
      `${output} is the new translation now (its ${lang} entries); the catalog as edited is kept as ${path.basename(backup)}\n`,
    );
    process.exitCode = EXIT.ok;
    return;
  }
  if (fs.existsSync(o.abs)) await fsp.rename(o.abs, backup);
  // A rename keeps the new translation's mtime: the output is as written again (not edited).
  await fsp.rename(o.beside, o.abs);
  process.stdout.write(
    `${output} is the new translation now; the edited version is kept as ${path.basename(backup)}\n`,
  );
  process.exitCode = EXIT.ok;
}
