// The retry rules on their own: Retry-After forms, backoff bounds, and which failure is retried for
// which kind of call.

import { describe, expect, it } from 'vitest';
import { backoffDelay, decideRetry, parseRetryAfter, type AttemptFailure } from '../../src/api/retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });
  it('reads an HTTP date, and a past date as no wait', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:59:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const s = { maxAttempts: 10, maxWaitMs: 60_000, baseDelayMs: 100, maxDelayMs: 1_000 };
  it('doubles per attempt, with jitter between half and all of it', () => {
    expect([1, 2, 3].map((a) => backoffDelay(a, s, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((a) => backoffDelay(a, s, () => 1))).toEqual([100, 200, 400]);
  });
  it('is capped at maxDelayMs', () => {
    expect(backoffDelay(8, s, () => 1)).toBe(1_000);
    expect(backoffDelay(30, s, () => 0)).toBe(500);
  });
});

describe('decideRetry', () => {
  const status = (n: number, bodySent?: boolean): AttemptFailure => ({
    type: 'status',
    status: n,
    ...(bodySent === undefined ? {} : { bodySent }),
  });
  const net = (code: string, neverConnected: boolean, bodySent: boolean): AttemptFailure => ({
    type: 'network',
    code,
    neverConnected,
    bodySent,
  });

  it('retries 429, 529 and 5xx of idempotent calls, never 456 or other 4xx', () => {
    for (const n of [429, 529, 500, 502, 503, 504])
      expect(decideRetry('idempotent', status(n))).toEqual({ retry: true });
    for (const n of [400, 401, 403, 404, 413, 456])
      expect(decideRetry('idempotent', status(n))).toEqual({ retry: false, maybeAccepted: false });
  });

  it('retries uploads only where the service surely did not take the document', () => {
    for (const n of [429, 529, 503]) expect(decideRetry('upload', status(n))).toEqual({ retry: true });
    for (const n of [500, 502, 504]) {
      expect(decideRetry('upload', status(n))).toEqual({ retry: false, maybeAccepted: true });
      expect(decideRetry('upload', status(n, true))).toEqual({ retry: false, maybeAccepted: true });
      // Answered before the body was all written: the service cannot hold the document.
      expect(decideRetry('upload', status(n, false))).toEqual({ retry: true });
    }
    expect(decideRetry('upload', status(456))).toEqual({ retry: false, maybeAccepted: false });
    expect(decideRetry('upload', net('ECONNREFUSED', true, false))).toEqual({ retry: true });
    expect(decideRetry('upload', net('EPIPE', false, false))).toEqual({ retry: true });
    expect(decideRetry('upload', net('ECONNRESET', false, true))).toEqual({
      retry: false,
      maybeAccepted: true,
    });
    expect(decideRetry('upload', net('ETIMEDOUT', false, true))).toEqual({
      retry: false,
      maybeAccepted: true,
    });
  });

  it('retries network errors of idempotent calls, not unknown ones', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'])
      expect(decideRetry('idempotent', net(code, false, true))).toEqual({ retry: true });
    expect(decideRetry('idempotent', net('ERR_INVALID_URL', true, false))).toEqual({
      retry: false,
      maybeAccepted: false,
    });
  });
});
