// Every fault class of the local service: retried where it should be, not where it must not be,
// counted from the server's own request log.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import type { RetryInfo } from '../../src/api/client-settings.js';
import type { RateLimiter } from '../../src/api/rate-limiter.js';
import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  QuotaExceededError,
  RateLimitedError,
  ServiceError,
  UnavailableError,
  UploadMaybeAcceptedError,
} from '../../src/api/errors.js';
import type { RunningService } from '../../src/local-service/types.js';
import { makeClient, requestsTo, settled, startTestService, tempDir, waitForDocument } from './helpers.js';

let svc: RunningService;
let client: ServiceClient;
let retries: RetryInfo[];
let tmp: Awaited<ReturnType<typeof tempDir>>;
let listId: string;
let src: string;

const LIST = (): string => `/v3/style_rules/${listId}`;

beforeAll(async () => {
  svc = await startTestService({ uploadLimits: { txt: 64 * 1024 } });
  client = makeClient(svc.url, { onRetry: (info) => retries.push(info) });
  tmp = await tempDir();
  src = join(tmp.dir, 'doc.txt');
  await writeFile(src, 'A small document.\n');
  listId = (await client.createStyleRules({ name: 'faults', language: 'de' })).style_id;
});
afterEach(() => {
  svc.clearFaults();
  svc.clearRequests();
  retries = [];
});
afterAll(async () => {
  client.close();
  await svc.close();
  await tmp.remove();
});
retries = [];

/** Run `call` with a client of a port where nothing listens any more. */
async function againstRefusedPort(
  call: (c: ServiceClient) => Promise<unknown>,
): Promise<{ err: unknown; seen: RetryInfo[] }> {
  const gone = await startTestService();
  await gone.close();
  const seen: RetryInfo[] = [];
  const c = makeClient(gone.url, { onRetry: (i) => seen.push(i) });
  const err = await call(c).catch((e: unknown) => e);
  c.close();
  return { err, seen };
}

describe('idempotent calls', () => {
  it.each([429, 529, 500, 502, 503, 504])('retry HTTP %i until it passes', async (status) => {
    svc.addFaults({ match: { method: 'GET', path: LIST() }, status, count: 2, retryAfter: 0 });
    const list = await client.getStyleRules(listId);
    expect(list.style_id).toBe(listId);
    expect(requestsTo(svc, 'GET', LIST()).map((r) => r.status)).toEqual([status, status, 200]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('gives up after maxAttempts with the typed error naming method, path, status and message', async () => {
    svc.addFaults({ match: { path: LIST() }, status: 503, count: 10 });
    const err = await client.getStyleRules(listId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect((err as UnavailableError).message).toMatch(
      new RegExp(`^GET ${LIST()}: HTTP 503: Service unavailable.*\\(injected_fault\\).*after 4 attempts`),
    );
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(4);

    svc.clearFaults();
    svc.clearRequests();
    svc.addFaults({ match: { path: LIST() }, status: 429, count: 10, retryAfter: 0 });
    await expect(client.getStyleRules(listId)).rejects.toBeInstanceOf(RateLimitedError);
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(4);
  });

  it('honours Retry-After in seconds', async () => {
    svc.addFaults({ match: { path: LIST() }, status: 429, count: 1, retryAfter: 1 });
    await client.getStyleRules(listId);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 1000, reason: 'HTTP 429' })]);
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(2);
  });

  it('does not wait beyond the total wait budget: a long Retry-After ends the call', async () => {
    const c = makeClient(svc.url, { retry: { maxWaitMs: 2_000, baseDelayMs: 5 } });
    svc.addFaults({ match: { path: LIST() }, status: 529, count: 1, retryAfter: 30 });
    const err = await c.getStyleRules(listId).catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(String(err)).toMatch(/30000 ms would exceed the retry wait budget/);
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(1);
  });

  it('retries a connection dropped before or after the body was read', async () => {
    svc.addFaults({ match: { method: 'PATCH', path: LIST() }, drop: 1 });
    svc.addFaults({ match: { method: 'PATCH', path: LIST() }, drop: 1, dropAfterBody: true });
    const list = await client.patchStyleRules(listId, { name: 'faults 2' });
    expect(list.name).toBe('faults 2');
    const log = requestsTo(svc, 'PATCH', LIST());
    expect(log.map((r) => r.fault ?? 'none')).toEqual(['drop', 'drop-after-body', 'none']);
    expect(retries.map((r) => r.reason)).toEqual(['ECONNRESET', 'ECONNRESET']);
  });

  it('retries a response slower than the response timeout, then fails with NetworkError', async () => {
    const c = makeClient(svc.url, { timeouts: { responseMs: 100 }, onRetry: (i) => retries.push(i) });
    svc.addFaults({ match: { path: LIST() }, latencyMs: 400 });
    const err = await c.getStyleRules(listId).catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(String(err)).toMatch(/timed out \(response\)/);
    expect(retries.map((r) => r.reason)).toEqual(['ETIMEDOUT', 'ETIMEDOUT', 'ETIMEDOUT']);
    // The server saw every attempt arrive.
    expect(await settled(4, () => requestsTo(svc, 'GET', LIST()))).toHaveLength(4);
  });

  it('waits for a slow response within the timeout without retrying', async () => {
    svc.addFaults({ match: { path: LIST() }, latencyMs: 100 });
    await client.getStyleRules(listId);
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it.each([
    [456, QuotaExceededError],
    [403, AuthError],
    [401, AuthError],
    [400, InvalidRequestError],
    [404, NotFoundError],
  ])('never retries HTTP %i', async (status, type) => {
    svc.addFaults({ match: { path: LIST() }, status, count: 3 });
    await expect(client.getStyleRules(listId)).rejects.toBeInstanceOf(type);
    expect(requestsTo(svc, 'GET', LIST())).toHaveLength(1);
  });

  it('retries a refused connection, then fails with NetworkError', async () => {
    const { err, seen } = await againstRefusedPort((c) => c.getStyleRules('x'));
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe('ECONNREFUSED');
    expect(seen.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
  });
});

describe('cancellation', () => {
  const TRANSLATE = '/v2/translate';
  const req = { text: ['Hello'], target_lang: 'DE' };

  it('a signal ends the wait between retries without another request', async () => {
    const ac = new AbortController();
    const c = makeClient(svc.url, { retry: { maxWaitMs: 60_000 }, onRetry: () => ac.abort() });
    svc.addFaults({ match: { path: TRANSLATE }, status: 429, count: 1, retryAfter: 30 });
    const err = await c.translateText(req, { signal: ac.signal }).catch((e: unknown) => e);
    c.close();
    expect((err as Error).name).toBe('AbortError');
    expect(requestsTo(svc, 'POST', TRANSLATE)).toHaveLength(1);
  });

  it('a signal takes a call out of the rate limiter queue; the call in flight completes', async () => {
    const c = makeClient(svc.url, { rateLimit: { concurrency: 1 } });
    svc.addFaults({ match: { path: TRANSLATE }, latencyMs: 200 });
    const ac = new AbortController();
    const first = c.translateText(req);
    const second = c.translateText(req, { signal: ac.signal }).catch((e: unknown) => e);
    ac.abort();
    expect(((await second) as Error).name).toBe('AbortError');
    expect((await first).translations).toHaveLength(1);
    c.close();
    expect(requestsTo(svc, 'POST', TRANSLATE)).toHaveLength(1);
  });
  it('a signal that comes while the call is in flight does not cut it: the caller gets the answer', async () => {
    const c = makeClient(svc.url);
    svc.addFaults({ match: { path: TRANSLATE }, latencyMs: 300 });
    const ac = new AbortController();
    const call = c.translateText(req, { signal: ac.signal });
    // Started: the rate limiter runs it (an upload in flight must be awaited and recorded).
    const limiter = (c as unknown as { transport: { limiter: RateLimiter } }).transport.limiter;
    while (limiter.running === 0) await new Promise((r) => setImmediate(r));
    ac.abort();
    expect((await call).translations).toHaveLength(1);
    c.close();
  });
});

describe('document status and download', () => {
  it('retries status polls and downloads like reads', async () => {
    const doc = await client.uploadDocument(src, { target_lang: 'DE' });
    const statusPath = `/v2/document/${doc.document_id}`;
    svc.addFaults({ match: { path: statusPath }, status: 502, count: 1 });
    svc.addFaults({ match: { path: statusPath }, drop: 1 });
    await waitForDocument(client, doc);
    expect(
      requestsTo(svc, 'POST', statusPath)
        .slice(0, 3)
        .map((r) => r.fault ?? 'none'),
    ).toEqual(['status:502', 'drop', 'none']);

    svc.addFaults({ match: { path: `${statusPath}/result` }, status: 504, count: 1 });
    const dest = join(tmp.dir, 'doc.de.txt');
    const { bytes } = await client.downloadDocument(doc.document_id, doc.document_key, dest);
    expect(bytes).toBeGreaterThan(0);
    expect(requestsTo(svc, 'POST', `${statusPath}/result`).map((r) => r.status)).toEqual([504, 200]);
  });

  it('passes a document that ends in error through with its message', async () => {
    svc.addFaults({ errorDocuments: 1 });
    const doc = await client.uploadDocument(src, { target_lang: 'DE' });
    const status = await waitForDocument(client, doc);
    expect(status).toEqual({
      document_id: doc.document_id,
      status: 'error',
      message: expect.any(String),
      error_message: expect.any(String),
    });
    if (status.status === 'error') expect(status.message.length).toBeGreaterThan(0);
  });

  it('passes an absurd seconds_remaining through unchanged', async () => {
    const slow = await startTestService({ translateSeconds: 30, faults: [{ absurdSecondsRemaining: true }] });
    const c = makeClient(slow.url);
    try {
      const doc = await c.uploadDocument(src, { target_lang: 'DE' });
      let status = await c.getDocumentStatus(doc.document_id, doc.document_key);
      for (let i = 0; status.status === 'queued' && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 10));
        status = await c.getDocumentStatus(doc.document_id, doc.document_key);
      }
      expect(status).toEqual({
        document_id: doc.document_id,
        status: 'translating',
        seconds_remaining: 2 ** 27,
      });
    } finally {
      c.close();
      await slow.close();
    }
  });

  it('a download that is gone is NotFoundError, not retried', async () => {
    const doc = await client.uploadDocument(src, { target_lang: 'DE' });
    await waitForDocument(client, doc);
    const err = await client
      .downloadDocument(doc.document_id, 'wrong-document-key', join(tmp.dir, 'x.txt'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(requestsTo(svc, 'POST', `/v2/document/${doc.document_id}/result`)).toHaveLength(1);
  });
});

describe('uploads (billed)', () => {
  const UPLOAD = '/v2/document';
  const uploads = (): ReturnType<typeof requestsTo> => requestsTo(svc, 'POST', UPLOAD);

  it.each([429, 529, 503])(
    'retries HTTP %i: the service surely did not take the document',
    async (status) => {
      svc.addFaults({ match: { path: UPLOAD }, status, count: 2, retryAfter: 0 });
      const doc = await client.uploadDocument(src, { target_lang: 'DE' });
      expect(uploads().map((r) => r.status)).toEqual([status, status, 200]);
      // Exactly one upload was accepted, and it is the one returned.
      expect(
        uploads()
          .filter((r) => r.upload?.document_id)
          .map((r) => r.upload?.document_id),
      ).toEqual([doc.document_id]);
    },
  );

  it.each([500, 502, 504])(
    'does not retry HTTP %i after the body was sent: UploadMaybeAcceptedError',
    async (status) => {
      // The latency lets the whole (small) body reach the service before it answers.
      svc.addFaults({ match: { path: UPLOAD }, status, count: 2, latencyMs: 30 });
      const err = await client.uploadDocument(src, { target_lang: 'DE' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
      expect((err as UploadMaybeAcceptedError).status).toBe(status);
      expect(String(err)).toMatch(new RegExp(`POST /v2/document: HTTP ${status}: .*may have accepted`));
      expect(uploads()).toHaveLength(1);
    },
  );

  it('does not retry a connection dropped after the service took the body', async () => {
    svc.addFaults({ match: { path: UPLOAD }, drop: 1, dropAfterBody: true });
    const err = await client.uploadDocument(src, { target_lang: 'DE' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
    expect(uploads()).toHaveLength(1);
    // ...and indeed the service had accepted it: retrying would have billed it twice.
    expect(uploads()[0]?.upload?.document_id).toEqual(expect.any(String));
  });

  it('does not retry when the answer times out after the body was sent', async () => {
    const c = makeClient(svc.url, { timeouts: { responseMs: 100 } });
    svc.addFaults({ match: { path: UPLOAD }, latencyMs: 400 });
    const err = await c.uploadDocument(src, { target_lang: 'DE' }).catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
    expect(await settled(1, uploads)).toHaveLength(1);
  });

  it('retries an upload dropped before the service read its body (the body never fully left)', async () => {
    const big = join(tmp.dir, 'large.txt');
    await writeFile(big, Buffer.alloc(16 * 1024 * 1024, 'a'));
    svc.addFaults({ match: { path: UPLOAD }, drop: 3 });
    const c = makeClient(svc.url, { retry: { maxAttempts: 3, baseDelayMs: 5 } });
    const err = await c.uploadDocument(big, { target_lang: 'DE' }).catch((e: unknown) => e);
    c.close();
    expect(err).toBeInstanceOf(NetworkError);
    const log = await settled(3, uploads);
    expect(log.map((r) => r.fault)).toEqual(['drop', 'drop', 'drop']);
    expect(log.filter((r) => r.upload?.document_id)).toEqual([]);
  });

  it('retries a refused connection (nothing was sent)', async () => {
    const { err, seen } = await againstRefusedPort((c) => c.uploadDocument(src, { target_lang: 'DE' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(seen.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('awaits beforeSend right before each attempt of an upload leaves; what it throws ends it unsent', async () => {
    svc.addFaults({ match: { path: UPLOAD }, status: 503, count: 1 });
    const c = makeClient(svc.url, { retry: { maxAttempts: 3, baseDelayMs: 5 } });
    let asked = 0;
    const seenBefore: number[] = [];
    const res = await c.uploadDocument(
      src,
      { target_lang: 'DE' },
      {
        beforeSend: async () => {
          asked++;
          seenBefore.push(uploads().length);
        },
      },
    );
    expect(res.document_id).toEqual(expect.any(String));
    // Asked before each attempt (the 503 and the accepted one), each time before it reached the service.
    expect(asked).toBe(2);
    expect(seenBefore).toEqual([0, 1]);
    svc.clearRequests();

    const refused = new Error('not recorded');
    const err = await c
      .uploadDocument(src, { target_lang: 'DE' }, { beforeSend: () => Promise.reject(refused) })
      .catch((e: unknown) => e);
    c.close();
    expect(err).toBe(refused);
    expect(uploads()).toEqual([]);
  });

  it('never retries 456 (quota) nor 413 (too large)', async () => {
    // (After the body arrived: a service answering before reading it may reset the connection
    // mid-body, which the client rightly retries as "not accepted".)
    svc.addFaults({ match: { path: UPLOAD }, status: 456, count: 3, latencyMs: 30 });
    await expect(client.uploadDocument(src, { target_lang: 'DE' })).rejects.toBeInstanceOf(
      QuotaExceededError,
    );
    expect(uploads()).toHaveLength(1);
    svc.clearFaults();
    svc.clearRequests();

    const big = join(tmp.dir, 'big.txt');
    await writeFile(big, 'x'.repeat(64 * 1024 + 100));
    const err = await client.uploadDocument(big, { target_lang: 'DE' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).status).toBe(413);
    expect(uploads()).toHaveLength(1);
  });
});

describe('a 2xx answer that cannot be read (a proxy page, cut short, empty, not the answer)', () => {
  const UPLOAD = '/v2/document';
  const KINDS = ['html', 'truncated', 'empty', 'other-json'] as const;

  it.each(KINDS)(
    'an upload answered 200 with %s is UploadMaybeAcceptedError, not retried: the service took it',
    async (garbleAs) => {
      svc.addFaults({ match: { path: UPLOAD }, garble: 1, garbleAs });
      const err = await client.uploadDocument(src, { target_lang: 'DE' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
      expect((err as UploadMaybeAcceptedError).status).toBe(200);
      expect(String(err)).toMatch(/POST \/v2\/document: HTTP 200: .*may have accepted/);
      const log = requestsTo(svc, 'POST', UPLOAD);
      expect(log.map((r) => [r.status, r.fault])).toEqual([[200, `garble:${garbleAs}`]]);
      // ...and the service did accept it: sending it again bills it twice.
      expect(log[0]?.upload?.document_id).toEqual(expect.any(String));
    },
  );

  it.each(KINDS)(
    'a text request answered 200 with %s is UploadMaybeAcceptedError, not retried',
    async (garbleAs) => {
      svc.addFaults({ match: { path: '/v2/translate' }, garble: 1, garbleAs });
      const err = await client
        .translateText({ text: ['Hello', 'World'], target_lang: 'DE' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
      expect(String(err)).toMatch(/POST \/v2\/translate: HTTP 200: .*may have translated/);
      expect(requestsTo(svc, 'POST', '/v2/translate').map((r) => r.status)).toEqual([200]);
    },
  );

  it('a status poll answered 200 unreadably bills nothing: a ServiceError, not UploadMaybeAcceptedError', async () => {
    const doc = await client.uploadDocument(src, { target_lang: 'DE' });
    const statusPath = `/v2/document/${doc.document_id}`;
    svc.addFaults({ match: { path: statusPath }, garble: 1 });
    const err = await client.getDocumentStatus(doc.document_id, doc.document_key).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).not.toBeInstanceOf(UploadMaybeAcceptedError);
    expect(String(err)).toMatch(/HTTP 200: the answer is not JSON/);
    // The next poll reads it as usual.
    expect((await waitForDocument(client, doc)).status).toBe('done');
  });
});
