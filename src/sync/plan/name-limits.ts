import { EDITED_TAG, NEW_TAG } from '../edited-names.js';
import { outputCondition, taggedPath } from '../run/edited-output.js';
import type { PlanContext } from './context.js';

// Names that cannot exist are found while planning, before anything is bought: the output's own
// name, and the names put beside an edited output. Part files beside an output take a digest
// when the name is long (../../util/part-file.ts), and quarantine keeps the output's own name
// (../../qa/quarantine.ts): neither is ever longer than the output's name allows.

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

/**
 * Why the files put beside an edited output (the new translation, and the person's version that
 * `outputs take-new` sets aside: ../edited-names.ts) cannot exist. Only an edited output needs them,
 * so only then is it refused: a name of 241–255 bytes is delivered over an output as written.
 */
export async function besideTooLong(
  ctx: PlanContext,
  output: string,
  doneId: number | undefined,
): Promise<string | undefined> {
  if (doneId === undefined) return undefined;
  for (const tag of [NEW_TAG, EDITED_TAG]) {
    const beside = taggedPath(output, tag);
    const tooLong = nameTooLong(
      beside,
      `output ${output} was edited by a person, so ${beside} goes beside it`,
    );
    // The name is checked first: the condition (a stat, perhaps a read) only for a name too long.
    if (
      tooLong &&
      (await outputCondition(ctx.folders.abs(output), await ctx.state.jobs.get(doneId))) === 'edited'
    )
      return tooLong;
  }
  return undefined;
}
