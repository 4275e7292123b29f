// The local translation service: the whole spec'd API (style rules, text and document translation),
// a scheduler for document jobs, faults on demand, and a request log. See docs/local-service.md.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
} from 'fastify';
import multipart from '@fastify/multipart';
import { AUTH_SCHEME } from '../api/types.js';
import { createLogger } from '../log/logger.js';
import { createEngine } from './engine/index.js';
import { isAuthorized } from './auth.js';
import { discardBody, dropConnection, getContext, setContext, type RequestContext } from './context.js';
import { registerControl } from './control.js';
import { DEFAULT_UPLOAD_LIMITS, registerDocuments } from './documents.js';
import { ApiError } from './errors.js';
import {
  describeFault,
  FAULT_HEADER,
  FaultBook,
  mergeFaults,
  parseFaultHeader,
  type RequestFault,
} from './faults.js';
import { DocumentFiles } from './files.js';
import { garbledBody, garbledContentType, garbles } from './garbled-answers.js';
import { RequestLog } from './request-log.js';
import { registerGlossariesV2 } from './glossaries-v2.js';
import { registerGlossariesV3 } from './glossaries-v3.js';
import { MockSessions } from './mock-sessions.js';
import { registerLanguages } from './languages-route.js';
import { KeyRateLimit } from './rate-limit.js';
import { Scheduler } from './scheduler.js';
import { Store } from './store.js';
import { registerStyleRules } from './style-rules.js';
import { registerTranslate } from './translate.js';
import type { RunningService, ServiceOptions } from './types.js';
import {
  chargeDocument,
  newAccount,
  persistedAccount,
  registerUsage,
  UNLIMITED_CHARACTERS,
  type UsageAccount,
} from './usage.js';

export type { RunningService, ServiceOptions, FaultSpec, RequestLogEntry } from './types.js';

export const DEFAULT_MAX_UNDOWNLOADED = 100;
const CONTROL_PREFIX = '/_locsync/';

function faultMessage(status: number): string {
  if (status === 429 || status === 529) return 'Too many requests (injected fault): retry after a while.';
  if (status === 456) return 'Quota exceeded (injected fault): the character limit has been reached.';
  if (status >= 500) return `Service unavailable (injected fault ${status}).`;
  return `Injected fault ${status}.`;
}

function uploadLimits(overrides: Partial<Record<string, number>> = {}): Record<string, number> {
  const out = { ...DEFAULT_UPLOAD_LIMITS };
  for (const [ext, n] of Object.entries(overrides)) if (typeof n === 'number') out[ext.toLowerCase()] = n;
  return out;
}

export async function startService(opts: ServiceOptions = {}): Promise<RunningService> {
  const plan = opts.plan ?? 'pro';
  let tempDir: string | undefined;
  let filesDir: string;
  let dbFile: string;
  if (opts.dataDir) {
    filesDir = join(opts.dataDir, 'files');
    await mkdir(filesDir, { recursive: true, mode: 0o700 });
    dbFile = join(opts.dataDir, 'service.db');
  } else {
    tempDir = await mkdtemp(join(tmpdir(), 'locsync-service-'));
    filesDir = tempDir;
    dbFile = ':memory:';
  }
  const files = new DocumentFiles(filesDir);
  await files.removeStrayParts();
  const store = new Store(dbFile);
  for (const s of opts.presetStyleLists ?? []) if (!store.getStyle(s.style_id)) store.insertStyle(s);
  const engine =
    opts.engine ??
    createEngine({
      ...(opts.phrasebookPath ? { phrasebookPath: opts.phrasebookPath } : {}),
      ...(opts.preloadDetection ? { preloadDetection: true } : {}),
    });
  const rateLimit = opts.requestsPerSecond ? new KeyRateLimit(opts.requestsPerSecond) : undefined;
  const faults = new FaultBook();
  faults.add(...(opts.faults ?? []));
  const log = new RequestLog();
  const sessions = new MockSessions();
  const serviceAccount = persistedAccount(
    newAccount({ characterLimit: opts.characterLimit ?? UNLIMITED_CHARACTERS }),
    opts.dataDir ? join(opts.dataDir, 'usage.json') : undefined,
  );
  const accountOf = (req: FastifyRequest): UsageAccount =>
    getContext(req)?.session?.account ?? serviceAccount;
  // Usage of each document is charged when it is done, to the account of its upload.
  const documentAccounts = new Map<string, UsageAccount>();
  const logger =
    opts.logLevel && opts.logLevel !== 'silent' ? createLogger({ level: opts.logLevel }) : undefined;
  const scheduler = new Scheduler({
    store,
    engine,
    files,
    queueMs: Math.max(0, (opts.queueSeconds ?? 1) * 1000),
    translateMs: Math.max(0, (opts.translateSeconds ?? 2) * 1000),
    workers: Math.max(1, opts.workers ?? 4),
    onDone: (job) => {
      chargeDocument(documentAccounts.get(job.document_id) ?? serviceAccount, job.billed_characters ?? 0);
      documentAccounts.delete(job.document_id);
    },
    onError: (err, job) =>
      logger?.warn({ document_id: job.document_id, err: String(err) }, 'document translation failed'),
  });

  const app: FastifyInstance = Fastify({
    ...(logger ? { loggerInstance: logger as unknown as FastifyBaseLogger } : { logger: false }),
    bodyLimit: 4 * 1024 * 1024,
    forceCloseConnections: true,
  });
  await app.register(multipart, {
    limits: { fileSize: Infinity, files: 4, fields: 32, fieldSize: 64 * 1024, parts: 48 },
    throwFileSizeLimit: false,
  });

  // JSON bodies: an empty body is no body (DELETE/POST without payload); form bodies for curl users.
  const json = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    json(req, body as string, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    done(null, out);
  });

  // Request log, faults and authentication, in this order, for every request but the control ones.
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (path.startsWith(CONTROL_PREFIX)) {
      if (path !== '/_locsync/health' && !isAuthorized(req.headers.authorization, opts.authKey))
        throw new ApiError(
          403,
          'forbidden',
          `Authorization failed: send 'Authorization: ${AUTH_SCHEME} <key>'.`,
        );
      return;
    }
    const entry = log.start(req.method, path);
    const ctx: RequestContext = { entry, fault: {} as RequestFault };
    setContext(req, ctx);
    // 'finish': the whole answer went to the socket (before the client can have read it);
    // 'close' without 'finish': the connection was dropped, status 0.
    const finish = (): void => {
      if (entry.finished) return;
      entry.status = reply.raw.writableFinished ? reply.raw.statusCode : 0;
      entry.finished = true;
    };
    reply.raw.once('finish', finish);
    reply.raw.once('close', finish);
    const header = req.headers[FAULT_HEADER];
    const fromHeader = typeof header === 'string' && header ? parseFaultHeader(header) : {};
    ctx.fault = mergeFaults(faults.forRequest(req.method, path), fromHeader);
    const session = sessions.forRequest(req.headers);
    if (session) {
      ctx.session = session;
      const taken = MockSessions.takeRequestFault(session);
      if (taken.drop) ctx.fault.drop = 'before-body';
      else if (taken.status !== undefined) ctx.fault.status ??= taken.status;
    }
    const described = describeFault(ctx.fault);
    if (described) entry.fault = described;
    if (ctx.fault.latencyMs) await sleep(ctx.fault.latencyMs);
    if (ctx.fault.drop === 'before-body') {
      reply.hijack();
      dropConnection(req);
      return reply;
    }
    if (ctx.fault.status !== undefined) {
      await discardBody(req);
      const s = ctx.fault.status;
      const headers: Record<string, string> = {};
      if (ctx.fault.retryAfter !== undefined || s === 429 || s === 529)
        headers['Retry-After'] = String(ctx.fault.retryAfter ?? 1);
      throw new ApiError(s, 'injected_fault', faultMessage(s), headers);
    }
    if (!isAuthorized(req.headers.authorization, opts.authKey))
      throw new ApiError(
        403,
        'forbidden',
        `Authorization failed: send 'Authorization: ${AUTH_SCHEME} <key>' with a valid key.`,
      );
    const wait = rateLimit?.take(req.headers.authorization ?? '');
    if (wait) {
      await discardBody(req);
      throw new ApiError(429, 'too_many_requests', 'Too many requests: retry after a while.', {
        'Retry-After': String(wait),
      });
    }
  });

  // Faults that drop the connection, or garble a 2xx answer, after the request was handled.
  app.addHook('onSend', async (req, reply, payload) => {
    const fault = getContext(req)?.fault;
    if (fault?.drop === 'after-body') dropConnection(req);
    if (fault?.garble !== undefined && garbles(reply.statusCode, reply.getHeader('content-type'))) {
      reply.header('content-type', garbledContentType(fault.garble));
      return garbledBody(fault.garble, payload);
    }
    return payload;
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply.code(err.status).send({ message: err.message, code: err.code });
    }
    const status =
      typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500
        ? err.statusCode
        : 500;
    if (status === 500) {
      req.log.error({ err }, 'internal error');
      return reply.code(500).send({ message: 'Internal server error.', code: 'internal' });
    }
    const code =
      status === 413 ? 'file_too_large' : err.code ? String(err.code).toLowerCase() : 'invalid_request';
    return reply.code(status === 415 ? 400 : status).send({ message: err.message, code });
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send({ message: `No such endpoint: ${req.method} ${req.url.split('?')[0]}`, code: 'not_found' }),
  );

  registerStyleRules(app, store, plan);
  registerTranslate(app, { store, engine, plan, accountOf });
  registerUsage(app, accountOf);
  registerLanguages(app);
  registerGlossariesV2(app, store.glossaries);
  registerGlossariesV3(app, store.glossaries);
  registerDocuments(app, {
    store,
    files,
    scheduler,
    faults,
    plan,
    uploadLimits: uploadLimits(opts.uploadLimits),
    maxUndownloaded: opts.maxUndownloaded ?? DEFAULT_MAX_UNDOWNLOADED,
    accountOf,
    documentAccounts,
  });
  registerControl(app, { log, faults, store, plan });

  try {
    await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  } catch (err) {
    store.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    throw err;
  }
  scheduler.resume();

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests: () => log.list(),
    clearRequests: () => log.clear(),
    addFaults: (...f) => faults.add(...f),
    clearFaults: () => faults.clear(),
    close: () =>
      (closing ??= (async () => {
        await scheduler.close();
        await app.close();
        store.close();
        if (tempDir) await rm(tempDir, { recursive: true, force: true });
      })()),
  };
}
