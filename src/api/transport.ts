// The client's HTTP plumbing, built on got with got's own retry disabled: one attempt of a call
// answered with JSON (or text), an upload's multipart body, a download's stream; and every call run
// through the rate limiter and the retry loop (./with-retries.ts). The endpoint modules
// (./style-rules.ts, ./text-calls.ts, ./document-calls.ts, ./glossaries.ts) are built on it.

import http from 'node:http';
import https from 'node:https';
import got, { type Got, type Method, type Request, type Response } from 'got';
import { VERSION } from '../version.js';
import type { ClientSettings } from './client-settings.js';
import { PlanError } from './errors.js';
import { bodyWasSent, networkFailure, statusFailure, unreadableAnswer, type Attempt } from './failures.js';
import { RateLimiter, type AccountGate } from './rate-limiter.js';
import type { CallKind } from './retry.js';
import type { UploadForm } from './upload-form.js';
import { withRetries, type RetryContext } from './with-retries.js';

/**
 * Per-call options. `signal` stops the call while it waits (in the rate limiter's queue or between
 * retries): it then rejects with the signal's reason. A request already in flight is never cut, so an
 * upload or a once-only download does not end half-done because of it.
 */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Awaited right before each attempt leaves, once the rate limits let it go (a billed call records
   * itself here: one waiting in the limiter has not left, so it is not recorded yet). What it throws
   * ends the call, unsent.
   */
  beforeSend?: () => Promise<void>;
}

export interface JsonCall {
  method: Method;
  path: string;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean>;
}

/** A call made by an endpoint module built on the client (e.g. ./glossaries.ts). */
export interface ServiceCall extends JsonCall {
  /** How it may be repeated (default idempotent); see ./retry.ts. */
  kind?: Exclude<CallKind, 'upload'>;
  /** Accept header; with it the answer is returned as text, not parsed as JSON. */
  accept?: string;
}

/**
 * What a call's 2xx answer must hold to be read as its answer (an upload's document_id and key): one
 * without it is unreadable, as one that is not JSON, and a billed call's then may have been billed.
 */
export interface AnswerCheck<T> {
  holds: (answer: unknown) => answer is T;
  /** What it must hold, for the error: "document_id and document_key". */
  what: string;
}

type StreamingTimeouts = { connect: number; response: number; read: undefined; socket: number };
type Agents = { http: http.Agent; https: https.Agent };

export class ServiceTransport implements RetryContext {
  readonly baseUrl: string;
  readonly plan: 'pro' | 'free';
  readonly retry: ClientSettings['retry'];
  readonly logger: ClientSettings['logger'];
  readonly onRetry: ClientSettings['onRetry'];
  readonly limiter: RateLimiter;
  private readonly timeouts: ClientSettings['timeouts'];
  private readonly got: Got;
  private readonly agents: Agents;
  /** Uploads use fresh connections: a stale keep-alive socket would make a failed upload ambiguous. */
  private readonly uploadAgents: Agents;
  private accountGate: AccountGate | undefined;

  constructor(settings: ClientSettings) {
    this.baseUrl = settings.baseUrl;
    this.plan = settings.plan;
    this.retry = settings.retry;
    this.logger = settings.logger;
    this.onRetry = settings.onRetry;
    this.timeouts = settings.timeouts;
    this.limiter = new RateLimiter(settings.rateLimit);
    this.agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    this.uploadAgents = {
      http: new http.Agent({ keepAlive: false }),
      https: new https.Agent({ keepAlive: false }),
    };
    this.got = got.extend({
      headers: { authorization: settings.authorization, 'user-agent': `locsync/${VERSION}` },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      agent: this.agents,
      // `read`: a JSON answer must also arrive whole within the response time once it has begun.
      timeout: {
        connect: this.timeouts.connectMs,
        response: this.timeouts.responseMs,
        read: this.timeouts.responseMs,
      },
    });
  }

  /** The account's request limits shared with other processes, if any (see AccountGate). */
  get gate(): AccountGate | undefined {
    return this.accountGate;
  }

  shareAccountLimits(gate: AccountGate): void {
    this.accountGate = gate;
  }

  /** Close idle keep-alive connections (the transport stays usable). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.uploadAgents.http.destroy();
    this.uploadAgents.https.destroy();
  }

  /** Style rules, and a style_id anywhere, are the professional plan's: refused before sending. */
  requirePro(call: { method: string; path: string }): void {
    if (this.plan === 'free') {
      throw new PlanError(
        { method: call.method, path: call.path },
        'style rules are available only on the professional plan (service.plan is free)',
      );
    }
  }

  /** Attempts of one call, made by `attemptOnce`, with the rate limit and retry rules. */
  attempts<T>(
    method: string,
    path: string,
    kind: CallKind,
    signal: AbortSignal | undefined,
    attemptOnce: () => Promise<Attempt<T>>,
  ): Promise<T> {
    return withRetries(this, { method, path, kind, signal }, attemptOnce);
  }

  /**
   * One call answered with JSON (or, with `accept`, text), with the rate limit and retry rules; with
   * `answer`, a 2xx answer that does not hold it is unreadable.
   */
  request<T>(call: ServiceCall, opts: CallOptions = {}, answer?: AnswerCheck<T>): Promise<T> {
    return this.attempts<T>(call.method, call.path, call.kind ?? 'idempotent', opts.signal, async () => {
      await opts.beforeSend?.();
      return this.sendJson<T>(call.method, call.path, {
        ...(call.json !== undefined ? { json: call.json } : {}),
        ...(call.searchParams !== undefined ? { searchParams: call.searchParams } : {}),
        ...(call.accept !== undefined ? { accept: call.accept } : {}),
        ...(answer !== undefined ? { answer } : {}),
      });
    });
  }

  /** One attempt of an upload: a multipart body on a fresh connection, answered with JSON holding `answer`. */
  sendForm<T>(method: Method, path: string, body: UploadForm, answer: AnswerCheck<T>): Promise<Attempt<T>> {
    return this.sendJson<T>(method, path, {
      body,
      answer,
      agent: this.uploadAgents,
      timeout: this.streamingTimeouts(),
    });
  }

  /** One attempt of a download: the answer as a stream (its body not yet read). */
  stream(method: Method, path: string, json: unknown): Request {
    return this.got.stream(this.url(path), { method, json, timeout: this.streamingTimeouts() });
  }

  /**
   * Uploads and downloads: no limit on the whole transfer (`read` of the defaults is unset: got merges
   * timeouts), only on silence (`socket`, the idle time).
   */
  private streamingTimeouts(): StreamingTimeouts {
    return {
      connect: this.timeouts.connectMs,
      response: this.timeouts.responseMs,
      read: undefined,
      socket: this.timeouts.idleMs,
    };
  }

  private url(path: string): string {
    return this.baseUrl + path;
  }

  /**
   * One attempt of a call answered with JSON (or 204). A 2xx answer that is not JSON, or does not hold
   * `answer`, is an unreadable answer (the service did what was asked), not a value.
   */
  private async sendJson<T>(
    method: Method,
    path: string,
    extra: {
      json?: unknown;
      body?: UploadForm;
      searchParams?: Record<string, string | number | boolean>;
      agent?: Agents;
      timeout?: StreamingTimeouts;
      /** Answer wanted as text of this type (not JSON). */
      accept?: string;
      answer?: AnswerCheck<T>;
    },
  ): Promise<Attempt<T>> {
    const { accept, answer, ...options } = extra;
    let res: Response<string>;
    try {
      res = await this.got(this.url(path), {
        method,
        responseType: 'text',
        ...options,
        ...(accept ? { headers: { accept } } : {}),
      });
    } catch (err) {
      return networkFailure(method, path, err);
    }
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      if (accept) return { ok: true, value: res.body as T };
      const empty = status === 204 || res.body.trim() === '';
      let value: unknown;
      try {
        value = empty ? undefined : JSON.parse(res.body);
      } catch {
        return unreadableAnswer(method, path, status, 'the answer is not JSON');
      }
      if (answer && !answer.holds(value))
        return unreadableAnswer(
          method,
          path,
          status,
          empty ? 'the answer is empty' : `the answer has no ${answer.what}`,
        );
      return { ok: true, value: value as T };
    }
    return statusFailure(method, path, status, res.headers, res.body, bodyWasSent(res.request));
  }
}
