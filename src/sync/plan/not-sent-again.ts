import type { JobRecord } from '../../state/types.js';

/**
 * Why the plan sends a failed output no more: it failed max_attempts times, or the service
 * refused it for good. A refusal keeps the service's own words; the summary and status add what
 * to change (../refused-for-good.ts).
 */
export function notSentAgain(
  kind: 'gave-up' | 'needs-fix',
  job: Pick<JobRecord, 'error' | 'attempts'> | undefined,
  maxAttempts: number,
): string {
  if (kind === 'needs-fix') return job?.error ?? 'refused by the service';
  return `failed ${job?.attempts ?? maxAttempts} times (limit max_attempts ${maxAttempts}): ${job?.error ?? 'unknown error'}`;
}
