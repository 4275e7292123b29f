import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { loadManifest } from '../manifest/load.js';
import { acceptSegmentConflicts } from '../sync/reviewed-segments.js';
import { besidePath, EDITED_TAG, taggedPath } from '../sync/run/edited-output.js';
import { ConfigError, EXIT } from '../util/errors.js';

// `locsync outputs keep|take-new <output>`: resolve the conflict between an output a person edited
// and the new translation written beside it (src/sync/run/edited-output.ts). Files only: the state
// keeps the record of the new translation, so that an output kept as edited stays protected.

interface OutputsOptions {
  config: string;
}

/** The output and its new translation, both absolute; refused when there is no conflict. */
async function conflictOf(output: string, opts: OutputsOptions): Promise<{ output: string; beside: string }> {
  const loaded = await loadManifest(opts.config);
  const abs = path.resolve(output);
  // An output named relative to the manifest folder is found too.
  const outputAbs = fs.existsSync(abs) ? abs : path.resolve(loaded.dir, output);
  const beside = besidePath(outputAbs);
  if (!fs.existsSync(beside))
    throw new ConfigError(
      `${output}: no new translation beside it (${path.basename(beside)}): nothing to resolve (\`locsync status\` lists the conflicts)`,
    );
  return { output: outputAbs, beside };
}

/** `outputs keep`: the person's version wins; the new translation beside it is removed. */
export async function outputsKeepAction(output: string, opts: OutputsOptions): Promise<void> {
  const c = await conflictOf(output, opts);
  await fsp.rm(c.beside);
  process.stdout.write(
    `kept ${output} as edited; removed the new translation ${path.basename(c.beside)} (a later source change is written beside it again)\n`,
  );
  process.exitCode = EXIT.ok;
}

/** A backup name not taken yet: guide.locsync-edited.docx, then guide.locsync-edited-2.docx ... */
function freeBackupPath(outputAbs: string): string {
  for (let n = 1; ; n++) {
    const p = taggedPath(outputAbs, n === 1 ? EDITED_TAG : `${EDITED_TAG}-${n}`);
    if (!fs.existsSync(p)) return p;
  }
}

/**
 * The segment path: the conflicts of reviewed segments whose source changed are accepted (the new
 * machine translation, already in the output, stands). False: the output has none.
 */
async function acceptedSegments(output: string, opts: OutputsOptions): Promise<boolean> {
  const loaded = await loadManifest(opts.config);
  const rel = path.relative(
    loaded.dir,
    fs.existsSync(output) ? path.resolve(output) : path.resolve(loaded.dir, output),
  );
  const accepted = await acceptSegmentConflicts(
    path.dirname(loaded.statePath),
    rel.split(path.sep).join('/'),
  );
  if (accepted)
    process.stdout.write(
      `${output}: the new translations of its reviewed segments whose source changed stand; the conflict is resolved\n`,
    );
  return accepted;
}

/** `outputs take-new`: the new translation wins; the person's version is kept as a backup file. */
export async function outputsTakeNewAction(output: string, opts: OutputsOptions): Promise<void> {
  if (await acceptedSegments(output, opts)) {
    process.exitCode = EXIT.ok;
    return;
  }
  const c = await conflictOf(output, opts);
  const backup = freeBackupPath(c.output);
  if (fs.existsSync(c.output)) await fsp.rename(c.output, backup);
  // A rename keeps the new translation's mtime: the output is as written again (not edited).
  await fsp.rename(c.beside, c.output);
  process.stdout.write(
    `${output} is the new translation now; the edited version is kept as ${path.basename(backup)}\n`,
  );
  process.exitCode = EXIT.ok;
}
