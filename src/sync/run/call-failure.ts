import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  PlanError,
  QuotaExceededError,
  RateLimitedError,
  UnavailableError,
} from '../../api/errors.js';
import type { FailureKind } from '../events.js';
import { refusedForGood } from '../refused-for-good.js';

// What a failed billed call (an upload, a text request) means, by one rule for both methods: what
// is not known to be refused may have been billed. Only a refusal the service answered (the quota,
// the key, the request itself) or a call that surely never reached it (429s and 503s past the
// client's retries, a connection never made, a 404, a feature the plan lacks) was surely not taken;
// anything else (a failure after the body was sent, a 2xx answer that cannot be read, an error
// nobody foresaw) may have been billed. Such a call's answer is lost either way, so it is sent again
// later in the same run (listed as possibly billed twice), unless the manifest leaves that to the
// next run (service.retry_unanswered_uploads: false).

/**
 * How the call ended: `not-taken` (surely not taken, for now: the next run tries again), `failed`
 * (refused: the quota, the key, a bad request), `maybe-taken` (it may have been billed).
 */
export type CallVerdict = 'not-taken' | 'failed' | 'maybe-taken';

export interface CallFailure {
  verdict: CallVerdict;
  kind: FailureKind;
  /** The error's own message (each method says what failed around it). */
  message: string;
  /** A later run tries again (else only until max_attempts). */
  willRetry: boolean;
  /** Uses up an attempt of max_attempts. */
  countsAttempt: boolean;
  /** Uploads must stop for the rest of the run. */
  stopUploads?: 'quota' | 'auth';
  /** Sent again later in this run, once its other work is done (a lost answer). */
  again?: boolean;
}

/** Refusals for now: every attempt was turned away (429, 503) or never reached the service. */
const NOT_REACHED = [RateLimitedError, UnavailableError, NetworkError, NotFoundError, PlanError];

export function callFailure(err: unknown, attemptsLeft: boolean, retryUnanswered = false): CallFailure {
  const message = (err as Error).message;
  if (err instanceof QuotaExceededError)
    return refused('quota', message, { willRetry: true, countsAttempt: false, stopUploads: 'quota' });
  if (err instanceof AuthError)
    return refused('auth', message, { willRetry: true, countsAttempt: false, stopUploads: 'auth' });
  if (err instanceof InvalidRequestError)
    return refusedForGood(message)
      ? refused('needs-fix', message, { willRetry: false, countsAttempt: true })
      : refused('rejected', message, { willRetry: attemptsLeft, countsAttempt: true });
  if (NOT_REACHED.some((refusal) => err instanceof refusal))
    return { verdict: 'not-taken', kind: 'transient', message, willRetry: true, countsAttempt: false };
  const again = retryUnanswered && attemptsLeft;
  return {
    verdict: 'maybe-taken',
    kind: 'maybe-accepted',
    message,
    willRetry: attemptsLeft,
    countsAttempt: true,
    ...(again ? { again } : {}),
  };
}

function refused(
  kind: FailureKind,
  message: string,
  o: Pick<CallFailure, 'willRetry' | 'countsAttempt' | 'stopUploads'>,
): CallFailure {
  return { verdict: 'failed', kind, message, ...o };
}
