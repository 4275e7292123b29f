// Shared set-up of the client tests: a local service on 127.0.0.1 port 0, clients with small
// backoff settings, temp folders, and a small HTTP proxy that counts requests in flight and can cut
// responses short (a connection dropped mid-download).

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import type { ClientOptions } from '../../src/api/client-settings.js';
import type { DocumentStatus, UploadDocumentResponse } from '../../src/api/types.js';
import { startService } from '../../src/local-service/index.js';
import type { RequestLogEntry, RunningService, ServiceOptions } from '../../src/local-service/types.js';

export const KEY = 'test-key-6f1d2c9a0b';

export function startTestService(opts: ServiceOptions = {}): Promise<RunningService> {
  return startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0.02, ...opts });
}

export function makeClient(baseUrl: string, opts: Partial<ClientOptions> = {}): ServiceClient {
  return new ServiceClient({
    baseUrl,
    apiKey: KEY,
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20, maxWaitMs: 5_000 },
    rateLimit: { requestsPerSecond: 1000, concurrency: 8 },
    timeouts: { connectMs: 2_000, responseMs: 5_000, idleMs: 5_000 },
    ...opts,
  });
}

/** A local service and a temp folder for the tests of one file (started before, removed after). */
export function useServiceAndTempDir(opts: ServiceOptions = {}): {
  svc: () => RunningService;
  dir: () => string;
} {
  let svc: RunningService | undefined;
  let tmp: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeAll(async () => {
    svc = await startTestService(opts);
    tmp = await tempDir();
  });
  afterAll(async () => {
    await svc?.close();
    await tmp?.remove();
  });
  return { svc: () => svc!, dir: () => tmp!.dir };
}

export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'locsync-api-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Requests of the server's own log to `method path` (path exact). */
export function requestsTo(svc: RunningService, method: string, path: string): RequestLogEntry[] {
  return svc.requests().filter((r) => r.method === method && r.path === path);
}

/**
 * The server logs a request once it is answered or dropped: wait (up to 5 s) until `read` returns at
 * least `n` entries (requests the client gave up on may still be in the service's latency).
 */
export async function settled<T>(n: number, read: () => T[]): Promise<T[]> {
  const until = Date.now() + 5_000;
  let got = read();
  while (got.length < n && Date.now() < until) {
    await sleep(20);
    got = read();
  }
  return got;
}

/** Poll a document until it is done or in error. */
export async function waitForDocument(
  client: ServiceClient,
  doc: UploadDocumentResponse,
  timeoutMs = 10_000,
): Promise<DocumentStatus> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await client.getDocumentStatus(doc.document_id, doc.document_key);
    if (s.status === 'done' || s.status === 'error') return s;
    if (Date.now() > until) throw new Error(`document still ${s.status} after ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** A bare HTTP server on 127.0.0.1 (for what the local service cannot be made to do). */
export async function startStub(
  handler: http.RequestListener,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type ResponseShape = { afterBytes: number; then: 'cut' | 'stall' } | { chunkDelayMs: number };

export interface CountingProxy {
  url: string;
  /** Most requests in flight at once (arrived, not yet answered completely). */
  maxInFlight(): number;
  /**
   * Shape every later 200 response whose path matches: send only `afterBytes` body bytes, then destroy
   * the connection (`cut`) or leave it open and silent (`stall`); or pass each chunk on after a delay.
   */
  shapeResponses(pathPattern: RegExp, shape: ResponseShape): void;
  /** Requests whose path matches are neither read nor forwarded nor answered: an upload that stalls. */
  stallRequests(pathPattern: RegExp): void;
  close(): Promise<void>;
}

/** An HTTP proxy in front of `target` that counts requests in flight and can drop responses midway. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let inFlight = 0;
  let max = 0;
  let shaping: { pattern: RegExp; shape: ResponseShape } | undefined;
  let stalled: RegExp | undefined;
  const stub = await startStub((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.once('close', finish);
    if (stalled?.test(req.url ?? '')) {
      req.pause();
      return;
    }
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        const shape =
          shaping?.pattern.test(req.url ?? '') && up.statusCode === 200 ? shaping.shape : undefined;
        if (!shape) {
          up.pipe(res);
        } else if ('chunkDelayMs' in shape) {
          up.on('data', (chunk: Buffer) => {
            up.pause();
            setTimeout(() => res.write(chunk, () => up.resume()), shape.chunkDelayMs);
          });
          up.on('end', () => setTimeout(() => res.end(), shape.chunkDelayMs + 1));
        } else {
          let sent = 0;
          up.on('data', (chunk: Buffer) => {
            if (sent >= shape.afterBytes) return;
            const part = chunk.subarray(0, shape.afterBytes - sent);
            sent += part.length;
            res.write(part);
            if (sent >= shape.afterBytes) {
              finish();
              up.destroy();
              if (shape.then === 'cut') res.socket?.destroy();
            }
          });
        }
      },
    );
    out.on('error', () => res.socket?.destroy());
    req.pipe(out);
  });
  return {
    url: stub.url,
    maxInFlight: () => max,
    shapeResponses: (pattern, shape) => {
      shaping = { pattern, shape };
    },
    stallRequests: (pattern) => {
      stalled = pattern;
    },
    close: stub.close,
  };
}
