// The client's retry rules, explicit and separate from HTTP plumbing: which failures are retried,
// for which kind of call, and how long to wait before the next attempt.

export interface RetrySettings {
  /** Attempts in all, the first included (1 = never retry). */
  maxAttempts: number;
  /** Total time spent waiting between attempts; a retry that would exceed it is not made. */
  maxWaitMs: number;
  /** Delay before the 2nd attempt; doubles on each further attempt (before jitter). */
  baseDelayMs: number;
  /** Cap of one delay computed by backoff (a server's Retry-After is honoured above it). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetrySettings = {
  maxAttempts: 6,
  maxWaitMs: 300_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/**
 * How a call may be repeated.
 * - `idempotent`: reads, PUT/PATCH/DELETE, and the POSTs that only read (document status, download).
 * - `upload`: billed; repeated only when the service surely did not take the document.
 * - `create`: makes something on the service (a glossary); repeated only when the service surely
 *   did not take the request, as an upload, since a repeat could make it twice.
 * - `text`: a text translation (POST /v2/translate), billed by its characters: repeated only when
 *   the service surely did not take it, as an upload.
 */
export type CallKind = 'idempotent' | 'upload' | 'create' | 'text';

/** What one attempt ended with, when it did not succeed. */
export type AttemptFailure =
  | {
      type: 'status';
      status: number;
      retryAfterMs?: number;
      /** false when the answer came before every byte of the request body was written. */
      bodySent?: boolean;
    }
  | {
      /** Answered 2xx (the service did what was asked), but the answer could not be read. */
      type: 'unreadable';
      status: number;
      /** What was wrong with it ("the answer is not JSON"). */
      detail: string;
    }
  | {
      type: 'network';
      code: string;
      /** The connection was never established (refused, DNS, connect timeout). */
      neverConnected: boolean;
      /** Every byte of the request body was written to the socket. */
      bodySent: boolean;
    };

/** HTTP statuses retried for idempotent calls. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);
/** HTTP statuses after which the service surely did not accept an upload. */
export const UPLOAD_SAFE_STATUSES: ReadonlySet<number> = new Set([429, 503, 529]);
/** Network error codes that are worth another attempt. */
export const RETRY_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

export type RetryDecision =
  { retry: true } | { retry: false; /** an upload the service may have accepted */ maybeAccepted: boolean };

export function decideRetry(kind: CallKind, failure: AttemptFailure): RetryDecision {
  const careful = kind !== 'idempotent';
  // A 2xx: the service took the call. A billed one was billed; a read is not repeated blindly either.
  if (failure.type === 'unreadable') return { retry: false, maybeAccepted: careful };
  if (failure.type === 'status') {
    if (careful) {
      if (UPLOAD_SAFE_STATUSES.has(failure.status)) return { retry: true };
      if (failure.status >= 500) {
        // Answered before the whole body left: the service cannot have the document.
        if (failure.bodySent === false) return { retry: true };
        // 500/502/504 after the body was sent: the service (or a proxy) may have stored it.
        return { retry: false, maybeAccepted: true };
      }
      return { retry: false, maybeAccepted: false };
    }
    return RETRY_STATUSES.has(failure.status) ? { retry: true } : { retry: false, maybeAccepted: false };
  }
  if (!RETRY_NETWORK_CODES.has(failure.code)) {
    return { retry: false, maybeAccepted: careful && failure.bodySent };
  }
  if (careful) {
    // A document whose bytes never all left this machine cannot have been accepted.
    if (failure.neverConnected || !failure.bodySent) return { retry: true };
    return { retry: false, maybeAccepted: true };
  }
  return { retry: true };
}

/** Exponential backoff with jitter: a random delay in [d/2, d], d = min(max, base * 2^(attempt-1)). */
export function backoffDelay(attempt: number, s: RetrySettings, random: () => number = Math.random): number {
  const exp = Math.min(s.maxDelayMs, s.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // An HTTP date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT"); bare numbers are not dates.
  if (!/[A-Za-z]{3}/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
