// What a failed attempt of a service call was: its typed error (by HTTP status or network
// failure), whether its body reached the service (an upload the service may have accepted), and
// how to read an error body. The retry loop (./with-retries.ts) decides on retries from these.

import { RequestError, TimeoutError, type Progress } from 'got';
import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UnreadableAnswerError,
  type ServiceErrorInit,
} from './errors.js';
import { parseRetryAfter, type AttemptFailure } from './retry.js';
import type { ServiceErrorBody } from './types.js';

/** Error bodies longer than this are cut (they are only read for their message). */
const MAX_ERROR_BODY = 64 * 1024;

export type Attempt<T> = { ok: true; value: T } | { ok: false; failure: AttemptFailure; error: ErrorFactory };
/** Builds the error to throw for a failed attempt, given the attempts made so far. */
export type ErrorFactory = (attempts: number, detail?: string) => ServiceError;

export function describeFailure(f: AttemptFailure): string {
  if (f.type === 'unreadable') return `HTTP ${f.status} (${f.detail})`;
  return f.type === 'status' ? `HTTP ${f.status}` : f.code;
}

function parseErrorBody(body: string): { serverMessage?: string; code?: string } {
  const text = body.trim();
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as Partial<ServiceErrorBody>;
    if (parsed && typeof parsed === 'object') {
      return {
        ...(typeof parsed.message === 'string' ? { serverMessage: parsed.message } : {}),
        ...(typeof parsed.code === 'string' ? { code: parsed.code } : {}),
      };
    }
  } catch {
    // not JSON: use the text itself
  }
  return { serverMessage: text.slice(0, 300) };
}

/** The typed error of an HTTP status. */
export function errorForStatus(init: ServiceErrorInit & { status: number }, detail?: string): ServiceError {
  const s = init.status;
  if (s === 401 || s === 403) return new AuthError(init, detail);
  if (s === 404) return new NotFoundError(init, detail);
  if (s === 456) return new QuotaExceededError(init, detail ?? 'character quota exceeded; not retried');
  if (s === 429 || s === 529) return new RateLimitedError(init, detail);
  if (s >= 500) return new UnavailableError(init, detail);
  if (s >= 400) return new InvalidRequestError(init, detail);
  return new ServiceError(init, detail ?? 'unexpected answer');
}

export function statusFailure<T>(
  method: string,
  path: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  bodySent?: boolean,
): Attempt<T> {
  const retryAfterMs = parseRetryAfter(firstHeader(headers['retry-after']));
  const parsed = parseErrorBody(body);
  return {
    ok: false,
    failure: {
      type: 'status',
      status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(bodySent !== undefined ? { bodySent } : {}),
    },
    error: (attempts, detail) => errorForStatus({ method, path, status, attempts, ...parsed }, detail),
  };
}

/** A 2xx answer that could not be read: `detail` says how ("the answer is not JSON"). */
export function unreadableAnswer<T>(
  method: string,
  path: string,
  status: number,
  detail: string,
): Attempt<T> {
  return {
    ok: false,
    failure: { type: 'unreadable', status, detail },
    error: (attempts) => new UnreadableAnswerError({ method, path, status, attempts }, detail),
  };
}

export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const NEVER_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
const CONNECT_EVENTS = new Set(['lookup', 'connect', 'secureConnect']);

export function networkFailure<T>(method: string, path: string, err: unknown): Attempt<T> {
  if (err instanceof ServiceError) throw err;
  const e = err as { code?: string; message?: string };
  const code = typeof e.code === 'string' ? e.code : 'ERR_NETWORK';
  const neverConnected =
    NEVER_CONNECTED_CODES.has(code) || (err instanceof TimeoutError && CONNECT_EVENTS.has(err.event));
  const bodySent = !neverConnected && (err instanceof RequestError ? bodyWasSent(err.request) : true);
  const what = err instanceof TimeoutError ? `timed out (${err.event})` : (e.message ?? code);
  // The cause carries only code and message: got's own error holds the request options (headers).
  const cause = Object.assign(new Error(what), { code });
  return {
    ok: false,
    failure: { type: 'network', code, neverConnected, bodySent },
    error: (attempts, detail) =>
      new NetworkError({ method, path, code, attempts, cause }, detail ? `${what}; ${detail}` : what),
  };
}

/** Whether every byte of the request body was written (true when unknown: the careful answer). */
export function bodyWasSent(request: { uploadProgress: Progress } | undefined): boolean {
  if (!request) return true;
  const p = request.uploadProgress;
  return p.total !== undefined ? p.transferred >= p.total : p.percent >= 1;
}

export async function readErrorBody(stream: AsyncIterable<unknown>): Promise<string> {
  let body = '';
  try {
    for await (const chunk of stream) {
      body += String(chunk);
      if (body.length > MAX_ERROR_BODY) break;
    }
  } catch {
    // the status says enough
  }
  return body;
}

export function isFsError(err: unknown): boolean {
  return (
    !(err instanceof RequestError) &&
    typeof (err as { syscall?: unknown }).syscall === 'string' &&
    ['open', 'write', 'fsync', 'rename', 'close'].includes((err as { syscall: string }).syscall)
  );
}
