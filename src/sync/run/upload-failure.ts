import {
  AuthError,
  InvalidRequestError,
  QuotaExceededError,
  UploadMaybeAcceptedError,
} from '../../api/errors.js';
import type { FailureKind } from '../events.js';

// What a failed upload means. Uploads are not idempotent (each is billed): only where the service
// surely did not accept the document is it tried again by the next run without counting an attempt.

export interface UploadFailure {
  kind: FailureKind;
  error: string;
  /** A later run tries again (else only until max_attempts). */
  willRetry: boolean;
  /** Uses up an attempt of max_attempts. */
  countsAttempt: boolean;
  /** Uploads must stop for the rest of the run. */
  stopUploads?: 'quota' | 'auth';
}

export function uploadFailure(err: unknown, attemptsLeft: boolean): UploadFailure {
  const message = (err as Error).message;
  if (err instanceof UploadMaybeAcceptedError)
    return {
      kind: 'maybe-accepted',
      error: `the upload failed after the document was sent: the service may have accepted (and billed) it; not retried in this run: ${message}`,
      willRetry: attemptsLeft,
      countsAttempt: true,
    };
  if (err instanceof QuotaExceededError)
    return { kind: 'quota', error: message, willRetry: true, countsAttempt: false, stopUploads: 'quota' };
  if (err instanceof AuthError)
    return { kind: 'auth', error: message, willRetry: true, countsAttempt: false, stopUploads: 'auth' };
  if (err instanceof InvalidRequestError)
    return { kind: 'rejected', error: message, willRetry: attemptsLeft, countsAttempt: true };
  // 429/5xx/network after the client's retries: surely not accepted; the next run tries again.
  return { kind: 'transient', error: message, willRetry: true, countsAttempt: false };
}
