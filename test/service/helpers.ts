// Helpers for the local service's integration tests: real HTTP on 127.0.0.1, port 0.
import { afterEach } from 'vitest';
import { startService, type RunningService, type ServiceOptions } from '../../src/local-service/index.js';

export const KEY = 'test-key-123456';
export const AUTH = { Authorization: `Service-Auth-Key ${KEY}` };

const running: RunningService[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** Starts a service closed after the test (fast scheduler by default). */
export async function start(opts: ServiceOptions = {}): Promise<RunningService> {
  const s = await startService({ authKey: KEY, queueSeconds: 0, translateSeconds: 0, ...opts });
  running.push(s);
  return s;
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A JSON request with the test key (override headers to change or drop it). */
export async function call<T = Record<string, unknown>>(
  s: RunningService,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = AUTH,
): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  const r = await fetch(s.url + path, init);
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: r.status, headers: r.headers, body: parsed as T, text };
}

export interface UploadParts {
  target_lang?: string;
  source_lang?: string;
  formality?: string;
  glossary_id?: string;
  output_format?: string;
  style_id?: string;
  filename?: string;
  [k: string]: string | undefined;
}

/** POST /v2/document with a multipart body: `file` named `name` holding `content`. */
export async function upload(
  s: RunningService,
  name: string | undefined,
  content: string | Uint8Array,
  parts: UploadParts = { target_lang: 'DE' },
  headers: Record<string, string> = AUTH,
): Promise<Answer<{ document_id: string; document_key: string; message?: string; code?: string }>> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(parts)) if (v !== undefined) fd.append(k, v);
  if (name !== undefined) fd.append('file', new Blob([content]), name);
  const r = await fetch(s.url + '/v2/document', { method: 'POST', headers, body: fd });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined, text };
}

export type Status = {
  document_id: string;
  status: string;
  seconds_remaining?: number;
  billed_characters?: number;
  message?: string;
};

export function status(s: RunningService, id: string, key: string, headers: Record<string, string> = AUTH) {
  return call<Status>(s, 'POST', `/v2/document/${id}`, { document_key: key }, headers);
}

export function download(s: RunningService, id: string, key: string) {
  return call<unknown>(s, 'POST', `/v2/document/${id}/result`, { document_key: key });
}

/** Polls until the document leaves queued/translating. */
export async function waitFinished(
  s: RunningService,
  id: string,
  key: string,
  timeoutMs = 10_000,
): Promise<Status> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await status(s, id, key);
    if (r.status !== 200) throw new Error(`status answered ${r.status}: ${r.text}`);
    if (r.body.status === 'done' || r.body.status === 'error') return r.body;
    if (Date.now() > until) throw new Error(`document ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Uploads, waits until finished; returns ids and the final status. */
export async function translateDocument(
  s: RunningService,
  name: string,
  content: string | Uint8Array,
  parts?: UploadParts,
) {
  const up = await upload(s, name, content, parts);
  if (up.status !== 200) throw new Error(`upload answered ${up.status}: ${up.text}`);
  const final = await waitFinished(s, up.body.document_id, up.body.document_key);
  return { ...up.body, final };
}
