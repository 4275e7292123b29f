// The typed HTTP client of the translation service (spec/style-rules.md, spec/document-translation.md
// and the extensions of design.md), built on got with got's own retry disabled: retries, rate limiting
// and error typing are done here, explicitly (see ./retry.ts and docs/client.md).

import { randomUUID } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { type Got, type Method, type Response } from 'got';
import PQueue from 'p-queue';
import { silentLogger, type Logger } from '../log/logger.js';
import { redactUrl, registerSecret, scrub } from '../log/secrets.js';
import { ConfigError } from '../util/errors.js';
import { PartFile, type PlaceAt } from '../util/part-file.js';
import { VERSION } from '../version.js';
import { PlanError, ServiceError, UploadMaybeAcceptedError } from './errors.js';
import {
  bodyWasSent,
  describeFailure,
  networkFailure,
  readErrorBody,
  statusFailure,
  type Attempt,
} from './failures.js';
import { incompleteDownload } from './download-check.js';
import { deliverBody, receiveBody } from './download-body.js';
import { DEFAULT_RETRY, backoffDelay, decideRetry, type CallKind, type RetrySettings } from './retry.js';
import {
  AUTH_SCHEME,
  type CreateStyleRuleListRequest,
  type CustomInstruction,
  type CustomInstructionInput,
  type ConfiguredRules,
  type DocumentStatus,
  type ListStyleRulesQuery,
  type ListStyleRulesResponse,
  type PatchStyleRuleListRequest,
  type StyleRuleList,
  type StyleRuleListSummary,
  type TranslateTextRequest,
  type TranslateTextResponse,
  type UploadDocumentRequest,
  type UploadDocumentResponse,
} from './types.js';

export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed (1-based); the next one is attempt + 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface ClientOptions {
  /** Base URL of the service (professional or free address), e.g. https://api.example.com. */
  baseUrl: string;
  apiKey: string;
  /** Scheme word of the Authorization header (default Service-Auth-Key). */
  authScheme?: string;
  /** The free plan has no style rules: those calls fail with PlanError before anything is sent. */
  plan?: 'pro' | 'free';
  timeouts?: { connectMs?: number; responseMs?: number; idleMs?: number };
  retry?: Partial<RetrySettings>;
  rateLimit?: { requestsPerSecond?: number; concurrency?: number };
  logger?: Logger;
  onRetry?: (info: RetryInfo) => void;
}

/**
 * Per-call options. `signal` stops the call while it waits (in the rate limiter's queue or between
 * retries): it then rejects with the signal's reason. A request already in flight is never cut, so an
 * upload or a once-only download does not end half-done because of it.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The account's request limits when several processes share one account (workers on a PostgreSQL
 * state): a token is taken before every attempt, and a 429 or 529 seen by one process slows all.
 */
export interface AccountGate {
  takeToken(signal?: AbortSignal): Promise<void>;
  pause(ms: number): Promise<void>;
}

export const DEFAULT_TIMEOUTS = { connectMs: 10_000, responseMs: 60_000, idleMs: 120_000 } as const;
export const DEFAULT_RATE_LIMIT = { requestsPerSecond: 10, concurrency: 4 } as const;
/** Page size used when walking every style rule list (the spec's maximum). */
const LIST_PAGE_SIZE = 25;

type StreamingTimeouts = { connect: number; response: number; read: undefined; socket: number };

interface JsonCall {
  method: Method;
  path: string;
  json?: unknown;
  searchParams?: Record<string, string | number | boolean>;
}

/** A call made by an endpoint module built on this client (e.g. ./glossaries.ts). */
export interface ServiceCall extends JsonCall {
  /** How it may be repeated (default idempotent); see ./retry.ts. */
  kind?: Exclude<CallKind, 'upload'>;
  /** Accept header; with it the answer is returned as text, not parsed as JSON. */
  accept?: string;
}

export class ServiceClient {
  readonly baseUrl: string;
  readonly plan: 'pro' | 'free';
  private readonly got: Got;
  private readonly queue: PQueue;
  private readonly retry: RetrySettings;
  private readonly timeouts: { connectMs: number; responseMs: number; idleMs: number };
  private readonly logger: Logger;
  private readonly onRetry: ((info: RetryInfo) => void) | undefined;
  private readonly agents: { http: http.Agent; https: https.Agent };
  /** Uploads use fresh connections: a stale keep-alive socket would make a failed upload ambiguous. */
  private readonly uploadAgents: { http: http.Agent; https: https.Agent };
  private gate: AccountGate | undefined;

  constructor(opts: ClientOptions) {
    if (!opts.apiKey) throw new ConfigError('The API key of the translation service is empty.');
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new ConfigError(`The service URL "${redactUrl(opts.baseUrl)}" is not a valid URL.`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new ConfigError(
        `The service URL "${redactUrl(opts.baseUrl)}" must start with http:// or https://.`,
      );
    }
    registerSecret(opts.apiKey);
    this.baseUrl = base.href.replace(/\/+$/, '');
    this.plan = opts.plan ?? 'pro';
    this.retry = { ...DEFAULT_RETRY, ...definedOnly(opts.retry ?? {}) };
    this.retry.maxAttempts = Math.max(1, Math.floor(this.retry.maxAttempts));
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(opts.timeouts ?? {}) };
    this.logger = opts.logger ?? silentLogger();
    this.onRetry = opts.onRetry;

    const rate = { ...DEFAULT_RATE_LIMIT, ...definedOnly(opts.rateLimit ?? {}) };
    if (!(rate.requestsPerSecond > 0)) throw new ConfigError('requests per second must be positive.');
    if (!(rate.concurrency >= 1)) throw new ConfigError('concurrency must be at least 1.');
    // intervalCap must be a whole number: n requests per n/rps seconds is the same rate.
    const intervalCap = Math.max(1, Math.floor(rate.requestsPerSecond));
    this.queue = new PQueue({
      concurrency: Math.floor(rate.concurrency),
      intervalCap,
      interval: Math.round((1000 * intervalCap) / rate.requestsPerSecond),
      strict: true,
    });

    this.agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    this.uploadAgents = {
      http: new http.Agent({ keepAlive: false }),
      https: new https.Agent({ keepAlive: false }),
    };
    this.got = got.extend({
      headers: {
        authorization: `${opts.authScheme ?? AUTH_SCHEME} ${opts.apiKey}`,
        'user-agent': `locsync/${VERSION}`,
      },
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

  /** Share the account's request limits with other processes (see AccountGate). */
  shareAccountLimits(gate: AccountGate): void {
    this.gate = gate;
  }

  /** Close idle keep-alive connections (the client stays usable). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.uploadAgents.http.destroy();
    this.uploadAgents.https.destroy();
  }

  // ---- Style rules (/v3, professional plan only) ----

  listStyleRules(q: ListStyleRulesQuery = {}): Promise<ListStyleRulesResponse> {
    const searchParams: Record<string, string | number | boolean> = {};
    if (q.detailed !== undefined) searchParams.detailed = q.detailed;
    if (q.page_size !== undefined) searchParams.page_size = q.page_size;
    if (q.page !== undefined) searchParams.page = q.page;
    return this.styleCall({ method: 'GET', path: '/v3/style_rules', searchParams });
  }

  /** Every style rule list, walking the pages (page_size 25) until a short page. */
  listAllStyleRules(opts: { detailed: true }): Promise<StyleRuleList[]>;
  listAllStyleRules(opts?: { detailed?: boolean }): Promise<StyleRuleListSummary[]>;
  async listAllStyleRules(opts: { detailed?: boolean } = {}): Promise<StyleRuleListSummary[]> {
    const all: StyleRuleListSummary[] = [];
    const seen = new Set<string>();
    for (let page = 0; ; page++) {
      const res = await this.listStyleRules({
        detailed: opts.detailed ?? false,
        page_size: LIST_PAGE_SIZE,
        page,
      });
      const fresh = res.style_rules.filter((s) => !seen.has(s.style_id));
      for (const s of fresh) {
        seen.add(s.style_id);
        all.push(s);
      }
      // A short page ends the walk; so does a page of lists already seen (a server ignoring `page`).
      if (res.style_rules.length < LIST_PAGE_SIZE || fresh.length === 0) return all;
    }
  }

  createStyleRules(req: CreateStyleRuleListRequest): Promise<StyleRuleList> {
    return this.styleCall({ method: 'POST', path: '/v3/style_rules', json: req });
  }

  getStyleRules(id: string): Promise<StyleRuleList> {
    return this.styleCall({ method: 'GET', path: `/v3/style_rules/${seg(id)}` });
  }

  patchStyleRules(id: string, req: PatchStyleRuleListRequest): Promise<StyleRuleList> {
    return this.styleCall({ method: 'PATCH', path: `/v3/style_rules/${seg(id)}`, json: req });
  }

  /** Replace every configured rule of a list (extension of the real service, design.md). */
  putConfiguredRules(id: string, rules: ConfiguredRules): Promise<StyleRuleList> {
    return this.styleCall({
      method: 'PUT',
      path: `/v3/style_rules/${seg(id)}/configured_rules`,
      json: rules,
    });
  }

  async deleteStyleRules(id: string): Promise<void> {
    await this.styleCall({ method: 'DELETE', path: `/v3/style_rules/${seg(id)}` });
  }

  /**
   * Our spec answers the whole list after adding an instruction; the real service answers the new
   * instruction alone, and then the list is read.
   */
  async addCustomInstruction(id: string, input: CustomInstructionInput): Promise<StyleRuleList> {
    const answer = await this.styleCall<StyleRuleList | CustomInstruction>({
      method: 'POST',
      path: `/v3/style_rules/${seg(id)}/custom_instructions`,
      json: input,
    });
    return 'style_id' in answer ? answer : this.getStyleRules(id);
  }

  getCustomInstruction(id: string, iid: string): Promise<CustomInstruction> {
    return this.styleCall({ method: 'GET', path: instructionPath(id, iid) });
  }

  replaceCustomInstruction(
    id: string,
    iid: string,
    input: CustomInstructionInput,
  ): Promise<CustomInstruction> {
    return this.styleCall({ method: 'PUT', path: instructionPath(id, iid), json: input });
  }

  async deleteCustomInstruction(id: string, iid: string): Promise<void> {
    await this.styleCall({ method: 'DELETE', path: instructionPath(id, iid) });
  }

  // ---- Text and documents (/v2) ----

  /**
   * Translate texts (POST /v2/translate). Billed by the characters of the texts: retried only when
   * the service surely did not take the request (as an upload); a failure after it was sent throws
   * UploadMaybeAcceptedError (the service may have translated, and billed, it).
   */
  async translateText(req: TranslateTextRequest, opts: CallOptions = {}): Promise<TranslateTextResponse> {
    const method = 'POST';
    const path = '/v2/translate';
    if (req.style_id !== undefined) this.requirePro({ method, path });
    return this.withRetries<TranslateTextResponse>(method, path, 'text', opts.signal, () =>
      this.sendJson<TranslateTextResponse>(method, path, { json: req }),
    );
  }

  /**
   * Upload a document, streamed from disk. Billed: retried only when the service surely did not take
   * it (connection never made or body not fully sent, 429, 503, 529); other failures after the body
   * was sent throw UploadMaybeAcceptedError.
   */
  async uploadDocument(
    filePath: string,
    req: UploadDocumentRequest,
    opts: CallOptions = {},
  ): Promise<UploadDocumentResponse> {
    const method = 'POST';
    const path = '/v2/document';
    if (req.style_id !== undefined) this.requirePro({ method, path });
    const filename = req.filename ?? basename(filePath);
    const res = await this.withRetries<UploadDocumentResponse>(
      method,
      path,
      'upload',
      opts.signal,
      async () => {
        const form = new FormData();
        form.append('target_lang', req.target_lang);
        if (req.source_lang !== undefined) form.append('source_lang', req.source_lang);
        if (req.formality !== undefined) form.append('formality', req.formality);
        if (req.glossary_id !== undefined) form.append('glossary_id', req.glossary_id);
        if (req.output_format !== undefined) form.append('output_format', req.output_format);
        if (req.style_id !== undefined) form.append('style_id', req.style_id);
        if (req.filename !== undefined) form.append('filename', req.filename);
        // A file-backed Blob: the encoder reads it from disk chunk by chunk while sending.
        form.append('file', await openAsBlob(filePath), filename);
        return this.sendJson<UploadDocumentResponse>(method, path, {
          body: form,
          agent: this.uploadAgents,
          timeout: this.streamingTimeouts(),
        });
      },
    );
    registerSecret(res.document_key);
    return res;
  }

  async getDocumentStatus(id: string, key: string, opts: CallOptions = {}): Promise<DocumentStatus> {
    registerSecret(key);
    const status = await this.jsonCall<DocumentStatus>(
      { method: 'POST', path: `/v2/document/${seg(id)}`, json: { document_key: key } },
      opts.signal,
    );
    if (status.status !== 'error') return status;
    // The service's own words enter our data here — the summary, the state's error column, status,
    // the status page, a webhook — so a key it echoes in them is redacted here, once (as
    // ServiceError does for the messages of failed calls).
    return {
      ...status,
      message: scrub(status.message ?? ''),
      ...(status.error_message !== undefined ? { error_message: scrub(status.error_message) } : {}),
    };
  }

  /**
   * Download a translated document to destPath: streamed to a temp file beside it, fsynced, then
   * renamed over destPath. On any failure the temp file is removed and destPath is untouched.
   * A 404 (already downloaded, unknown id or key) is NotFoundError.
   */
  async downloadDocument(
    id: string,
    key: string,
    destPath: string,
    opts: CallOptions & {
      /** Where to keep the bytes if they cannot be put at destPath (see ../util/spool.ts). */
      spoolTo?: string;
      /** Asked for the name right before the rename onto destPath (see ../util/part-file.ts). */
      placeAt?: PlaceAt;
      /**
       * Looks at the whole download in its part file before it is renamed over destPath; what it
       * throws is the download's error (the output checks of ../qa/gate.ts: the part file was moved).
       */
      vet?: (partPath: string) => Promise<void>;
    } = {},
  ): Promise<{ bytes: number }> {
    registerSecret(key);
    const method = 'POST';
    const path = `/v2/document/${seg(id)}/result`;
    return this.withRetries(method, path, 'idempotent', opts.signal, () =>
      this.downloadAttempt(method, path, key, destPath, opts.spoolTo, opts.placeAt, opts.vet),
    );
  }

  /**
   * One call with this client's rate limit, retry rules and typed errors, for endpoint modules
   * (./glossaries.ts). A `create` call the service may have taken throws UploadMaybeAcceptedError.
   */
  request<T>(call: ServiceCall, opts: CallOptions = {}): Promise<T> {
    return this.withRetries<T>(call.method, call.path, call.kind ?? 'idempotent', opts.signal, () =>
      this.sendJson<T>(call.method, call.path, {
        ...(call.json !== undefined ? { json: call.json } : {}),
        ...(call.searchParams !== undefined ? { searchParams: call.searchParams } : {}),
        ...(call.accept !== undefined ? { accept: call.accept } : {}),
      }),
    );
  }

  // ---- Plumbing ----

  private requirePro(call: { method: string; path: string }): void {
    if (this.plan === 'free') {
      throw new PlanError(
        { method: call.method, path: call.path },
        'style rules are available only on the professional plan (service.plan is free)',
      );
    }
  }

  private async styleCall<T>(call: JsonCall): Promise<T> {
    this.requirePro(call);
    return this.jsonCall(call);
  }

  private jsonCall<T>(call: JsonCall, signal?: AbortSignal): Promise<T> {
    return this.withRetries<T>(call.method, call.path, 'idempotent', signal, () =>
      this.sendJson<T>(call.method, call.path, {
        ...(call.json !== undefined ? { json: call.json } : {}),
        ...(call.searchParams !== undefined ? { searchParams: call.searchParams } : {}),
      }),
    );
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

  /** One attempt of a call answered with JSON (or 204). */
  private async sendJson<T>(
    method: Method,
    path: string,
    extra: {
      json?: unknown;
      body?: FormData;
      searchParams?: Record<string, string | number | boolean>;
      agent?: { http: http.Agent; https: https.Agent };
      timeout?: StreamingTimeouts;
      /** Answer wanted as text of this type (not JSON). */
      accept?: string;
    },
  ): Promise<Attempt<T>> {
    const { accept, ...options } = extra;
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
      if (status === 204 || res.body.trim() === '') return { ok: true, value: undefined as T };
      try {
        return { ok: true, value: JSON.parse(res.body) as T };
      } catch {
        throw new ServiceError({ method, path, status }, 'the answer is not JSON');
      }
    }
    return statusFailure(method, path, status, res.headers, res.body, bodyWasSent(res.request));
  }

  private async downloadAttempt(
    method: Method,
    path: string,
    key: string,
    destPath: string,
    spoolTo: string | undefined,
    placeAt: PlaceAt | undefined,
    vet: ((partPath: string) => Promise<void>) | undefined,
  ): Promise<Attempt<{ bytes: number }>> {
    // The temp file is made before asking: a download is once-only, so a local problem (missing
    // folder, no permission) must surface before the service hands the document over.
    const part = await PartFile.open(destPath, randomUUID().slice(0, 8), { exclusive: true });
    const stream = this.got.stream(this.url(path), {
      method,
      json: { document_key: key },
      timeout: this.streamingTimeouts(),
    });
    try {
      let response: Response;
      try {
        response = await new Promise<Response>((resolve, reject) => {
          stream.once('response', resolve);
          stream.once('error', reject);
        });
      } catch (err) {
        return networkFailure(method, path, err);
      }
      if (response.statusCode !== 200) {
        return statusFailure(
          method,
          path,
          response.statusCode,
          response.headers,
          await readErrorBody(stream),
        );
      }
      const received = await receiveBody(stream, part, spoolTo);
      const incomplete = incompleteDownload(response.headers, received.bytes, received.streamError);
      if (incomplete !== undefined) {
        await received.spooled?.spool.discard();
        return networkFailure(method, path, incomplete);
      }
      // A body that went to the spool is checked when it is delivered from there.
      if (vet && !received.spooled) await vet(part.path);
      await deliverBody(received, part, spoolTo, placeAt);
      const { bytes } = received;
      return { ok: true, value: { bytes } };
    } finally {
      stream.destroy();
      await part.discard();
    }
  }

  /**
   * Run attempts through the shared rate limiter until one succeeds, a failure is not retryable,
   * attempts run out, or the next wait would exceed the total wait budget.
   */
  /**
   * One attempt through the rate limiter. `signal` takes it out of the queue while it waits; once
   * started it is awaited to the end (the queue alone would leave a started request running and
   * reject its caller: an upload the service then accepts and bills would go unrecorded).
   */
  private queued<T>(attemptOnce: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) return this.queue.add(attemptOnce) as Promise<T>;
    const waiting = new AbortController();
    let started = false;
    const onAbort = () => {
      if (!started) waiting.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const run = () => {
      started = true;
      return attemptOnce();
    };
    return (this.queue.add(run, { signal: waiting.signal }) as Promise<T>).finally(() =>
      signal.removeEventListener('abort', onAbort),
    );
  }

  private async withRetries<T>(
    method: string,
    path: string,
    kind: CallKind,
    signal: AbortSignal | undefined,
    attemptOnce: () => Promise<Attempt<T>>,
  ): Promise<T> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      // Only awaited with a gate: a call aborted at once must not get a tick to slip into the queue.
      if (this.gate) {
        await this.gate.takeToken(signal);
        signal?.throwIfAborted();
      }
      const started = Date.now();
      const r = (await this.queued(attemptOnce, signal)) as Attempt<T>;
      const ms = Date.now() - started;
      if (r.ok) {
        this.logger.debug({ method, path, attempt, ms }, 'service call ok');
        return r.value;
      }
      const reason = describeFailure(r.failure);
      this.logger.debug({ method, path, attempt, ms, reason }, 'service call failed');
      const decision = decideRetry(kind, r.failure);
      if (!decision.retry) {
        if (decision.maybeAccepted) {
          const cause = r.error(attempt);
          throw new UploadMaybeAcceptedError(
            {
              method,
              path,
              status: cause.status,
              serverMessage: cause.serverMessage,
              code: cause.code,
              attempts: attempt,
              cause,
            },
            kind === 'upload'
              ? `${reason} after the document was sent: the service may have accepted (and will bill) it; not retried`
              : kind === 'text'
                ? `${reason} after the texts were sent: the service may have translated (and billed) them; not retried`
                : `${reason} after the request was sent: the service may have made it; not retried`,
          );
        }
        throw r.error(attempt);
      }
      if (attempt >= this.retry.maxAttempts) throw r.error(attempt);
      const retryAfter = r.failure.type === 'status' ? r.failure.retryAfterMs : undefined;
      const delayMs = retryAfter ?? backoffDelay(attempt, this.retry);
      // Told to slow down: every process sharing the account waits, not only this one.
      if (r.failure.type === 'status' && (r.failure.status === 429 || r.failure.status === 529))
        await this.gate?.pause(delayMs);
      if (waited + delayMs > this.retry.maxWaitMs) {
        throw r.error(
          attempt,
          `next retry in ${delayMs} ms would exceed the retry wait budget of ${this.retry.maxWaitMs} ms`,
        );
      }
      waited += delayMs;
      this.logger.warn({ method, path, attempt, delayMs, reason }, 'service call failed; retrying');
      this.onRetry?.({ method, path, attempt, delayMs, reason });
      await sleep(delayMs, undefined, signal ? { signal } : {});
    }
  }
}

// ---- helpers ----

function seg(id: string): string {
  return encodeURIComponent(id);
}

function instructionPath(id: string, iid: string): string {
  return `/v3/style_rules/${seg(id)}/custom_instructions/${seg(iid)}`;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
