// Typed errors of the service client. Every message names the method, the path, the HTTP status and
// the server's message; never the API key or a document_key (messages go through `scrub`).

import { scrub } from '../log/secrets.js';

export interface ServiceErrorInit {
  method: string;
  path: string;
  status?: number;
  serverMessage?: string;
  code?: string;
  /** Attempts made before giving up (1 when the call was not retried). */
  attempts?: number;
  cause?: unknown;
}

/** Base class: a call to the service failed. */
export class ServiceError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly serverMessage: string | undefined;
  readonly code: string | undefined;
  readonly attempts: number;

  constructor(init: ServiceErrorInit, detail?: string) {
    super(scrub(formatMessage(init, detail)), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.serverMessage = init.serverMessage === undefined ? undefined : scrub(init.serverMessage);
    this.code = init.code;
    this.attempts = init.attempts ?? 1;
  }
}

function formatMessage(init: ServiceErrorInit, detail: string | undefined): string {
  const parts = [`${init.method} ${init.path}`];
  if (init.status !== undefined) parts.push(`HTTP ${init.status}`);
  if (init.serverMessage) parts.push(init.code ? `${init.serverMessage} (${init.code})` : init.serverMessage);
  else if (init.code) parts.push(init.code);
  if (detail) parts.push(detail);
  if (init.attempts !== undefined && init.attempts > 1) parts.push(`after ${init.attempts} attempts`);
  return parts.join(': ');
}

/** 401/403: the key is missing, wrong, or not allowed to do this. */
export class AuthError extends ServiceError {}

/** The plan does not offer this feature (style rules on the free plan); raised before any call. */
export class PlanError extends ServiceError {}

/** 456: the account's character quota is used up. Never retried: stop uploading. */
export class QuotaExceededError extends ServiceError {}

/** 429/529 still answered after every allowed retry. */
export class RateLimitedError extends ServiceError {}

/** 404: unknown id (for a document status/download also: wrong key, or already downloaded). */
export class NotFoundError extends ServiceError {}

/** 400, 413 and other 4xx: the request itself is wrong; the server's message and code say why. */
export class InvalidRequestError extends ServiceError {}

/** 5xx still answered after every allowed retry (or not retryable). */
export class UnavailableError extends ServiceError {}

/**
 * A 2xx answer that could not be read: not JSON (a proxy's page, a body cut short), empty, or without
 * what the call answers with. The service did what was asked; only its answer is lost. A billed call
 * (an upload, a text request) ends with UploadMaybeAcceptedError instead, this as its cause.
 */
export class UnreadableAnswerError extends ServiceError {}

/** No HTTP answer: connection refused/reset/dropped, timeout, DNS. */
export class NetworkError extends ServiceError {}

/**
 * An upload failed after its body was sent (connection dropped, 500/502/504, timeout waiting for the
 * answer): the service may have accepted, and will bill, the document. Not retried.
 */
export class UploadMaybeAcceptedError extends ServiceError {}
