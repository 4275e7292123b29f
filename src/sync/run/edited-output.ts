import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { extensionOf, languagePartDigest } from '../../documents/format-registry.js';
import { inPlaceOutput, outputFile, outputLanguage } from '../../manifest/in-place-output.js';
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

/**
 * `out/de/guide.docx` → `out/de/guide<tag>.docx` (a name without extension gets the tag at its end).
 * A language's part of an in-place file names its language: `App/Localizable.xcstrings#de` →
 * `App/Localizable<tag>.de.xcstrings`.
 */
export function taggedPath(outputPath: string, tag: string): string {
  const lang = outputLanguage(outputPath);
  const file = outputFile(outputPath);
  const ext = path.extname(file);
  const stem = file.slice(0, file.length - ext.length);
  return `${stem}${tag}${lang === undefined ? '' : `.${lang}`}${ext}`;
}

/** Where the new translation of an edited output is put. */
export const besidePath = (outputPath: string): string => taggedPath(outputPath, NEW_TAG);

/**
 * Where the new translation of an output's file is put, the output named `output` by its job: the
 * beside name of a language's part of an in-place file says its language.
 */
export function besideOf(output: string | undefined): (dest: string) => string {
  const lang = output === undefined ? undefined : outputLanguage(output);
  return lang === undefined ? besidePath : (dest) => besidePath(inPlaceOutput(dest, lang));
}

/** The tag of the n-th backup of a person's version: `.locsync-edited`, then `.locsync-edited-2` ... */
export const backupTag = (n: number): string => (n === 1 ? EDITED_TAG : `${EDITED_TAG}-${n}`);

/**
 * The tag of the backup `locsync outputs take-new` would make of the output now: the first whose
 * file is not there yet (each take-new of a later conflict sets one more version aside).
 */
export function freeBackupTag(outputAbs: string): string {
  for (let n = 1; ; n++) if (!fs.existsSync(taggedPath(outputAbs, backupTag(n)))) return backupTag(n);
}

/**
 * What a delivered file is, as recorded. `sha256`: its bytes' digest when known (not read again).
 * `part`: the delivery is a language's part of an in-place file, recorded as that part's digest.
 */
export async function writtenOf(
  fileAbs: string,
  sha256?: string,
  part?: { lang: string },
): Promise<WrittenOutput> {
  const st = await fsp.stat(fileAbs);
  const digest = part ? await partRecord(fileAbs, part.lang) : (sha256 ?? (await sha256File(fileAbs)));
  return { sha256: digest, size: st.size, mtimeMs: st.mtimeMs };
}

// What is recorded of a language's part of an in-place file (an .xcstrings catalog holding every
// language): `part:<lang>:<digest of that language's entries>`. The file's bytes, size and mtime
// change whenever another language is written into it or edited, so only this part's digest tells
// whether a person edited the target's entries.
const PART_RECORD = 'part:';

async function partRecord(fileAbs: string, lang: string): Promise<string> {
  return `${PART_RECORD}${lang}:${await languagePartDigest(fileAbs, extensionOf(fileAbs), lang)}`;
}

/** The language of a part's record (undefined: the record of a whole file's bytes). */
function partRecordLanguage(sha256: string): string | undefined {
  if (!sha256.startsWith(PART_RECORD)) return undefined;
  return sha256.slice(PART_RECORD.length, sha256.indexOf(':', PART_RECORD.length));
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
  record: Pick<JobRecord, 'output_size' | 'output_mtime_ms'> & Partial<Pick<JobRecord, 'output_sha256'>>,
): OutputCondition | 'bytes' {
  if (!st) return 'missing';
  // Size and mtime as written: not opened (the common case, cheap). Otherwise the bytes decide (a
  // file touched or copied back unchanged is not an edit).
  if (st.size === record.output_size && st.mtimeMs === record.output_mtime_ms) return 'as-written';
  // Another size of an in-place file says nothing of this language's part: its part decides.
  if (record.output_sha256 && partRecordLanguage(record.output_sha256) !== undefined) return 'bytes';
  return st.size !== record.output_size ? 'edited' : 'bytes';
}

/** The condition, reading the output's bytes when its stat could not tell. */
export async function conditionOfBytes(
  outputAbs: string,
  record: Pick<JobRecord, 'output_sha256'>,
  byStat: OutputCondition | 'bytes',
): Promise<OutputCondition> {
  if (byStat !== 'bytes') return byStat;
  const recorded = record.output_sha256;
  const lang = recorded ? partRecordLanguage(recorded) : undefined;
  // A catalog a person broke (not JSON any more) has no such part: it is not as written.
  const now =
    lang === undefined ? await sha256File(outputAbs) : await partRecord(outputAbs, lang).catch(() => '');
  return now === recorded ? 'as-written' : 'edited';
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
    private readonly besideAt: (dest: string) => string = besidePath,
    private readonly keep?: KeepReplaced,
  ) {
    this.placed = outputAbs;
  }

  readonly placeAt = async (dest: string): Promise<string> => {
    const edited = !this.overwriteEdits && (await outputCondition(this.outputAbs, this.record)) === 'edited';
    this.beside = edited;
    this.placed = edited ? this.besideAt(dest) : dest;
    if (this.keep) await keepReplaced(this.keep, this.outputAbs, this.placed, edited);
    return this.placed;
  };
}
