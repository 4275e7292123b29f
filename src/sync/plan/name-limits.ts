import { EDITED_TAG, NEW_TAG } from '../edited-names.js';
import { freeBackupTag, outputCondition, taggedPath } from '../run/edited-output.js';
import type { PlanContext } from './context.js';
import type { TranslateAction } from './types.js';

// Names that cannot exist are found while planning, before anything is bought: the output's own
// name, and the names put beside an output with a person's work in it. Part files beside an output
// take a digest when the name is long (../../util/part-file.ts), and quarantine keeps the output's
// own name (../../qa/quarantine.ts): neither is ever longer than the output's name allows.

/** The longest name of a file or folder that common file systems hold (ext4, XFS, NTFS, SMB: 255). */
const NAME_MAX_BYTES = 255;

/**
 * Why the output path cannot be written anywhere: a part of it longer than NAME_MAX_BYTES. Found
 * before the upload, as the download of a paid document may be fetched only once.
 */
export function nameTooLong(output: string, what = `output ${output}`): string | undefined {
  for (const part of output.split(/[\\/]/)) {
    const bytes = Buffer.byteLength(part);
    if (bytes > NAME_MAX_BYTES)
      return `${what}: the name '${part.slice(0, 40)}…' is ${bytes} bytes, longer than file systems allow (${NAME_MAX_BYTES}): shorten the source name or the output pattern; nothing was uploaded`;
  }
  return undefined;
}

/** A backup tag longer than any take-new makes in practice: a name with room for it needs no look. */
const LONGEST_BACKUP = `${EDITED_TAG}-999999`;

/**
 * Why the files put beside an output cannot exist: the new translation (`.locsync-new`) and the
 * person's version that `outputs take-new` would set aside (`.locsync-edited`, or `-2`, `-3` ...
 * when earlier ones are kept: ../edited-names.ts). Only a delivery that puts the new translation
 * beside the output needs them, so only then is it refused (a name of 241–255 bytes is delivered
 * over an output as written): on the document path an output a person edited; on the segment path
 * (`segments`: the planned translation) what the delivery will do, as `plan` says it (a reviewed
 * segment whose source changed, from this edit or one an earlier delivery took in; an edit that
 * cannot be matched). An edit the segment path takes in and writes over needs neither.
 */
export async function besideTooLong(
  ctx: PlanContext,
  output: string,
  doneId: number | undefined,
  segments?: Pick<TranslateAction, 'ref' | 'source' | 'settings'>,
): Promise<string | undefined> {
  if (doneId === undefined || !nameTooLong(taggedPath(output, LONGEST_BACKUP))) return undefined;
  // The names first: the output's condition (a stat, perhaps a read of the segments) only for one
  // too long.
  const tooLong = (what: string): string | undefined => {
    for (const tag of [NEW_TAG, freeBackupTag(ctx.folders.abs(output))]) {
      const beside = taggedPath(output, tag);
      const message = nameTooLong(
        beside,
        tag === NEW_TAG
          ? `output ${output} ${what}, so ${beside} goes beside it`
          : `output ${output} ${what}, so \`locsync outputs take-new\` sets it aside as ${beside}`,
      );
      if (message) return message;
    }
    return undefined;
  };
  if (!tooLong('')) return undefined;
  const edited =
    (await outputCondition(ctx.folders.abs(output), await ctx.state.jobs.get(doneId))) === 'edited';
  if (!segments) return edited ? tooLong('was edited by a person') : undefined;
  const { plannedReview } = await import('../segments/planned-review.js');
  const review = await plannedReview(ctx.loaded, ctx.state, segments);
  if (!review?.beside) return undefined;
  return tooLong(edited ? 'was edited by a person' : "holds a person's wording whose source changed");
}
