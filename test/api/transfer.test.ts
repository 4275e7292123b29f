// Downloads land under their final name whole or not at all; the rate limiter bounds what the
// server sees, whatever the number of callers.

import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { NetworkError, NotFoundError } from '../../src/api/errors.js';
import type { RunningService } from '../../src/local-service/types.js';
import {
  makeClient,
  requestsTo,
  startCountingProxy,
  startTestService,
  tempDir,
  waitForDocument,
  type CountingProxy,
} from './helpers.js';

let svc: RunningService;
let proxy: CountingProxy;
let tmp: Awaited<ReturnType<typeof tempDir>>;
let direct: ServiceClient;

beforeAll(async () => {
  svc = await startTestService({ workers: 8 });
  tmp = await tempDir();
  direct = makeClient(svc.url);
});
afterEach(async () => {
  await proxy?.close();
  svc.clearFaults();
  svc.clearRequests();
});
afterAll(async () => {
  direct.close();
  await svc.close();
  await tmp.remove();
});

async function translatedDocument(name: string, content: string): Promise<{ id: string; key: string }> {
  const src = join(tmp.dir, name);
  await writeFile(src, content);
  const doc = await direct.uploadDocument(src, { target_lang: 'DE' });
  expect(await waitForDocument(direct, doc)).toMatchObject({ status: 'done' });
  return { id: doc.document_id, key: doc.document_key };
}

const filesIn = async (dir: string): Promise<string[]> => (await readdir(dir)).sort();

describe('download', () => {
  it('a connection cut mid-download leaves neither a partial file nor a temp file, and the old file intact', async () => {
    const dir = join(tmp.dir, 'cut');
    await mkdir(dir);
    const doc = await translatedDocument('cut.txt', 'Line of text to translate.\n'.repeat(20_000));
    const dest = join(dir, 'cut.de.txt');
    await writeFile(dest, 'previous translation');

    proxy = await startCountingProxy(svc.url);
    proxy.shapeResponses(/\/result$/, { afterBytes: 100_000, then: 'cut' });
    const client = makeClient(proxy.url, { retry: { maxAttempts: 3, baseDelayMs: 5 } });
    const err = await client.downloadDocument(doc.id, doc.key, dest).catch((e: unknown) => e);
    client.close();

    // The first attempt was cut; the service counts a started download as done, so the retry is 404:
    // the pipeline's "lost download".
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).attempts).toBe(2);
    expect(requestsTo(svc, 'POST', `/v2/document/${doc.id}/result`)).toHaveLength(2);
    expect(await filesIn(dir)).toEqual(['cut.de.txt']);
    expect(await readFile(dest, 'utf8')).toBe('previous translation');
  });

  it('a download that stalls past the idle timeout is abandoned, leaving no file', async () => {
    const dir = join(tmp.dir, 'stall');
    await mkdir(dir);
    const doc = await translatedDocument('stall.txt', 'Line of text to translate.\n'.repeat(20_000));
    proxy = await startCountingProxy(svc.url);
    proxy.shapeResponses(/\/result$/, { afterBytes: 100_000, then: 'stall' });
    const client = makeClient(proxy.url, { retry: { maxAttempts: 1 }, timeouts: { idleMs: 200 } });
    const err = await client
      .downloadDocument(doc.id, doc.key, join(dir, 'stall.de.txt'))
      .catch((e: unknown) => e);
    client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(String(err)).toMatch(/timed out \(socket\)/);
    expect(await filesIn(dir)).toEqual([]);
  });

  it('a download longer than the response timeout but never idle completes', async () => {
    const content = 'Line of text to translate.\n'.repeat(20_000);
    const doc = await translatedDocument('slow.txt', content);
    proxy = await startCountingProxy(svc.url);
    proxy.shapeResponses(/\/result$/, { chunkDelayMs: 60 });
    const client = makeClient(proxy.url, {
      retry: { maxAttempts: 1 },
      timeouts: { responseMs: 300, idleMs: 2_000 },
    });
    const dest = join(tmp.dir, 'slow.de.txt');
    const { bytes } = await client.downloadDocument(doc.id, doc.key, dest);
    client.close();
    expect((await stat(dest)).size).toBe(bytes);
    expect(bytes).toBeGreaterThan(content.length);
  });

  it('replaces an existing file only once the new one is complete', async () => {
    const dir = join(tmp.dir, 'replace');
    await mkdir(dir);
    const doc = await translatedDocument('replace.txt', 'Fresh content.\n');
    const dest = join(dir, 'replace.de.txt');
    await writeFile(dest, 'old');
    const { bytes } = await direct.downloadDocument(doc.id, doc.key, dest);
    const text = await readFile(dest, 'utf8');
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(text).not.toBe('old');
    expect(await filesIn(dir)).toEqual(['replace.de.txt']);
  });

  it('a destination folder that does not exist fails before the once-only download is asked for', async () => {
    const doc = await translatedDocument('nofolder.txt', 'Text.\n');
    const dest = join(tmp.dir, 'missing-folder', 'x.txt');
    await expect(direct.downloadDocument(doc.id, doc.key, dest)).rejects.toThrow(/ENOENT/);
    expect(requestsTo(svc, 'POST', `/v2/document/${doc.id}/result`)).toHaveLength(0);
    // So the translation is still there to collect.
    const { bytes } = await direct.downloadDocument(doc.id, doc.key, join(tmp.dir, 'nofolder.de.txt'));
    expect(bytes).toBeGreaterThan(0);
  });
});

describe('upload', () => {
  it('an upload that stalls past the idle timeout before its body left is retried, then fails as a network error', async () => {
    const big = join(tmp.dir, 'stalled-upload.txt');
    await writeFile(big, Buffer.alloc(16 * 1024 * 1024, 'a'));
    proxy = await startCountingProxy(svc.url);
    proxy.stallRequests(/^\/v2\/document$/);
    const reasons: string[] = [];
    const client = makeClient(proxy.url, {
      retry: { maxAttempts: 2, baseDelayMs: 5 },
      timeouts: { idleMs: 200 },
      onRetry: (i) => reasons.push(i.reason),
    });
    const err = await client.uploadDocument(big, { target_lang: 'DE' }).catch((e: unknown) => e);
    client.close();
    // Not UploadMaybeAcceptedError: the body never fully left, so the service cannot hold it.
    expect(err).toBeInstanceOf(NetworkError);
    expect(String(err)).toMatch(/timed out \(socket\)/);
    expect(reasons).toEqual(['ETIMEDOUT']);
    expect(requestsTo(svc, 'POST', '/v2/document')).toHaveLength(0);
  });
});

describe('rate limiter', () => {
  /** 20 parallel callers through one client; the most requests the proxy saw in flight at once. */
  async function maxInFlightWith(concurrency: number): Promise<number> {
    proxy = await startCountingProxy(svc.url);
    const client = makeClient(proxy.url, { rateLimit: { concurrency, requestsPerSecond: 1000 } });
    svc.addFaults({ match: { method: 'GET', path: '/v3/style_rules' }, latencyMs: 40 });
    await Promise.all(Array.from({ length: 20 }, () => client.listStyleRules()));
    client.close();
    expect(requestsTo(svc, 'GET', '/v3/style_rules')).toHaveLength(20);
    return proxy.maxInFlight();
  }

  it('never has more requests in flight at the server than the concurrency, whatever the callers', async () => {
    expect(await maxInFlightWith(3)).toBe(3);
  });

  it('the same 20 callers with a high limit do overlap (the proxy counts what it sees)', async () => {
    expect(await maxInFlightWith(20)).toBeGreaterThan(3);
  });

  it('starts at most requestsPerSecond requests in any second, retries included', async () => {
    const client = makeClient(svc.url, { rateLimit: { concurrency: 50, requestsPerSecond: 5 } });
    svc.addFaults({ match: { method: 'GET', path: '/v3/style_rules' }, status: 503, count: 3 });
    await Promise.all(Array.from({ length: 9 }, () => client.listStyleRules()));
    client.close();
    const starts = requestsTo(svc, 'GET', '/v3/style_rules').map((r) => Date.parse(r.time));
    expect(starts).toHaveLength(12);
    // At the server: within any 500 ms window (slack for delivery delays), no more than 5 arrivals;
    // without the limiter all 12 arrive within a few milliseconds.
    const most = Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + 500).length));
    expect(most).toBeLessThanOrEqual(5);
  });
});
