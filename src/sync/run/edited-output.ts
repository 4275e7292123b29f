import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EDITED_TAG, NEW_TAG } from '../edited-names.js';
import { sha256File } from '../plan/list-sources.js';
import type { JobRecord, WrittenOutput } from '../../state/types.js';
import { keepReplaced, type KeepReplaced } from './replaced-outputs.js';

// Outputs edited by people (a reviewer's correction) are never replaced silently. A done job records
// what it wrote (sha256, size, mtime); an output that differs from that record was edited. A new
// translation of an edited output is put beside it (guide.locsync-new.docx) instead of over it: the
// pair is a conflict until `locsync outputs keep|take-new` resolves it. The comparison is made just
// before the rename that would replace the output, so an edit made while a sync downloads is seen.

export { EDITED_TAG, NEW_TAG } from '../edited-names.js';

/** `out/de/guide.docx` → `out/de/guide<tag>.docx` (a name without extension gets the tag at its end). */
export function taggedPath(outputPath: string, tag: string): string {
  const ext = path.extname(outputPath);
  const stem = outputPath.slice(0, outputPath.length - ext.length);
  return `${stem}${tag}${ext}`;
}

/** Where the new translation of an edited output is put. */
export const besidePath = (outputPath: string): string => taggedPath(outputPath, NEW_TAG);

/** The tag of the n-th backup of a person's version: `.locsync-edited`, then `.locsync-edited-2` ... */
export const backupTag = (n: number): string => (n === 1 ? EDITED_TAG : `${EDITED_TAG}-${n}`);

/**
 * The tag of the backup `locsync outputs take-new` would make of the output now: the first whose
 * file is not there yet (each take-new of a later conflict sets one more version aside).
 */
export function freeBackupTag(outputAbs: string): string {
  for (let n = 1; ; n++) if (!fs.existsSync(taggedPath(outputAbs, backupTag(n)))) return backupTag(n);
}

/** What a delivered file is, as recorded. `sha256`: its bytes' digest when known (not read again). */
export async function writtenOf(fileAbs: string, sha256?: string): Promise<WrittenOutput> {
  const st = await fsp.stat(fileAbs);
  return { sha256: sha256 ?? (await sha256File(fileAbs)), size: st.size, mtimeMs: st.mtimeMs };
}

/** A done job's record of what it wrote, as handed to the ledger (none when it was not recorded). */
export function recordOf(job: JobRecord | undefined): WrittenOutput | undefined {
  if (!job?.output_sha256 || job.output_size === null || job.output_mtime_ms === null) return undefined;
  return { sha256: job.output_sha256, size: job.output_size, mtimeMs: job.output_mtime_ms };
}

/**
 * unrecorded: no record of what was written (done before records were kept, or never delivered);
 * missing: no file; as-written: the bytes locsync wrote; edited: anything else.
 */
export type OutputCondition = 'unrecorded' | 'missing' | 'as-written' | 'edited';

export async function outputCondition(
  outputAbs: string,
  record: Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'> | undefined,
): Promise<OutputCondition> {
  if (!record?.output_sha256) return 'unrecorded';
  const st = await fsp.stat(outputAbs).catch(() => undefined);
  return conditionOfBytes(outputAbs, record, conditionByStat(st, record));
}

/**
 * What the output's stat says of it (undefined: no file, or none that can be read): its condition, or
 * 'bytes' when only its bytes can tell (the size as written, another mtime).
 */
export function conditionByStat(
  st: Pick<fs.Stats, 'size' | 'mtimeMs'> | undefined,
  record: Pick<JobRecord, 'output_size' | 'output_mtime_ms'>,
): OutputCondition | 'bytes' {
  if (!st) return 'missing';
  // Size and mtime as written: not opened (the common case, cheap). Otherwise the bytes decide (a
  // file touched or copied back unchanged is not an edit).
  if (st.size === record.output_size && st.mtimeMs === record.output_mtime_ms) return 'as-written';
  return st.size !== record.output_size ? 'edited' : 'bytes';
}

/** The condition, reading the output's bytes when its stat could not tell. */
export async function conditionOfBytes(
  outputAbs: string,
  record: Pick<JobRecord, 'output_sha256'>,
  byStat: OutputCondition | 'bytes',
): Promise<OutputCondition> {
  if (byStat !== 'bytes') return byStat;
  return (await sha256File(outputAbs)) === record.output_sha256 ? 'as-written' : 'edited';
}

/**
 * Where one delivery goes, decided at its rename (`placeAt`): over the output, or beside it when the
 * output differs from the previous delivery's record (`record`) and edits are not to be overwritten.
 * `keep`: the output as it was and the source are kept for `locsync review` (./replaced-outputs.ts).
 */
export class Placement {
  /** Where the delivery was put (set by placeAt). */
  placed: string;
  beside = false;

  constructor(
    private readonly outputAbs: string,
    private readonly record: Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'> | undefined,
    private readonly overwriteEdits: boolean,
    private readonly keep?: KeepReplaced,
  ) {
    this.placed = outputAbs;
  }

  readonly placeAt = async (dest: string): Promise<string> => {
    const edited = !this.overwriteEdits && (await outputCondition(this.outputAbs, this.record)) === 'edited';
    this.beside = edited;
    this.placed = edited ? besidePath(dest) : dest;
    if (this.keep) await keepReplaced(this.keep, this.outputAbs, this.placed, edited);
    return this.placed;
  };
}
