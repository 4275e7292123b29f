import type { Logger } from '../../log/logger.js';
import type { JobSincePlan } from '../../state/types.js';
import type { OutputRef } from '../plan/types.js';
import type { LiveSummary } from './live-summary.js';

// An output another worker ended since this run planned it: found right before a billed call would
// leave (./billed-call.ts), or as this run came to take up the output's recorded job (./claims.ts).
// Nothing is sent for it here, and both places say so in the same words.

/** What another worker's job did to the output since this run planned it, for people. */
export function endedWords(found: JobSincePlan): string {
  if (found.status === 'done')
    return `delivered by another worker since this run planned it (job ${found.id})`;
  if (found.status === 'failed')
    return `another worker's job ${found.id} failed it since this run planned it (${found.error_kind ?? 'failed'}): not bought again here; the next run decides it`;
  return `another worker took it since this run planned it (job ${found.id}): left to it`;
}

/** Reports the output `ref` that another worker's job (`found`) ended since this run planned it. */
export function reportEndedElsewhere(
  report: LiveSummary,
  ref: OutputRef,
  found: JobSincePlan,
  log: Logger,
): void {
  if (found.status === 'done') report.heldElsewhere({ ...ref, jobId: found.id }, 'done', log);
  else report.notSent(ref, endedWords(found), log);
}
