import fs from 'node:fs';
import type { Logger } from '../../log/logger.js';
import type { JobRecord } from '../../state/types.js';

// An output on disk after something went wrong with it: taken when a killed run wrote it but did
// not record it, and what to tell people when it could not be written.

/**
 * A recorded document answered 404. If the previous run was killed after the download was renamed
 * into place but before it was recorded, the output is there and newer than the download's start:
 * it is taken. Otherwise the document is lost.
 */
export function recoverWritten(
  job: JobRecord,
  outputAbs: string,
  log: Logger,
): { billed: number; bytes: number } | undefined {
  if (job.download_started_ms === null || job.billed_characters === null) return undefined;
  let st: fs.Stats;
  try {
    st = fs.statSync(outputAbs);
  } catch {
    return undefined;
  }
  if (st.mtimeMs + 2 < job.download_started_ms) return undefined;
  log.info('the output was written by an earlier run that stopped before recording it: taken as done');
  return { billed: job.billed_characters, bytes: st.size };
}

/** What to do about an output that could not be written (the translation waits in the spool). */
export function writeAdvice(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENAMETOOLONG')
    return 'the name is too long for the output folder: shorten the source name or the output pattern; the paid translation waits in the spool and is delivered from there (not uploaded again) by the next run';
  if (code === 'EILSEQ' || code === 'EINVAL')
    return 'the output folder does not accept this name (characters its file system refuses): rename the source or change the output pattern; the paid translation waits in the spool and is delivered from there (not uploaded again) by the next run';
  return 'resumes next run';
}
