import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  UnavailableError,
  UploadMaybeAcceptedError,
} from '../../api/errors.js';
import type { FailureKind } from '../events.js';

// What a failed upload means. Uploads are not idempotent (each is billed): only where the service
// surely did not accept the document is it tried again without counting an attempt. One whose answer
// was lost after the document was sent may have been accepted (and billed): the document id is lost
// either way, so it is uploaded again later in the same run (possibly billed twice, and listed as
// such), unless the manifest leaves that to the next run (service.retry_unanswered_uploads: false).

export interface UploadFailure {
  kind: FailureKind;
  error: string;
  /** A later run tries again (else only until max_attempts). */
  willRetry: boolean;
  /** Uses up an attempt of max_attempts. */
  countsAttempt: boolean;
  /** Uploads must stop for the rest of the run. */
  stopUploads?: 'quota' | 'auth';
  /** Uploaded again later in this run, once its other work is done (a lost answer). */
  retryInRun?: boolean;
}

export function uploadFailure(err: unknown, attemptsLeft: boolean, retryUnanswered = false): UploadFailure {
  const message = (err as Error).message;
  if (err instanceof UploadMaybeAcceptedError) {
    const retryInRun = retryUnanswered && attemptsLeft;
    return {
      kind: 'maybe-accepted',
      error: `the upload failed after the document was sent: the service may have accepted (and billed) it; ${
        retryInRun ? 'uploaded again later in this run' : 'not retried in this run'
      }: ${message}`,
      willRetry: attemptsLeft,
      countsAttempt: true,
      ...(retryInRun ? { retryInRun } : {}),
    };
  }
  if (err instanceof QuotaExceededError)
    return { kind: 'quota', error: message, willRetry: true, countsAttempt: false, stopUploads: 'quota' };
  if (err instanceof AuthError)
    return { kind: 'auth', error: message, willRetry: true, countsAttempt: false, stopUploads: 'auth' };
  if (err instanceof InvalidRequestError)
    return { kind: 'rejected', error: message, willRetry: attemptsLeft, countsAttempt: true };
  // 429/5xx/network after the client's retries: surely not accepted; the next run tries again.
  return { kind: 'transient', error: message, willRetry: true, countsAttempt: false };
}

/**
 * The service surely did not take the billed call that ended with `err`: it refused it (the quota, the
 * key, the request itself, 404), or every attempt was refused for now (429, 503) or did not reach it.
 * A failure after the body was sent is an UploadMaybeAcceptedError, none of these. Anything else (that,
 * a 2xx answer that could not be read, an error of this process) may have been billed.
 */
export function surelyNotTaken(err: unknown): boolean {
  return [
    QuotaExceededError,
    AuthError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
    UnavailableError,
    NetworkError,
  ].some((refusal) => err instanceof refusal);
}
