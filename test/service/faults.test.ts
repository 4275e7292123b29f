import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AUTH, KEY, call, start, status, translateDocument, upload, waitFinished } from './helpers.js';
import { stubEngine } from './stub-engine.js';

const FAULT = 'X-Locsync-Fault';

async function dropped(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    return err instanceof TypeError; // fetch failed: the socket closed with no response
  }
}

describe('server faults (ServiceOptions.faults, addFaults)', () => {
  it('answers the next N matching requests 429 with Retry-After, then normally', async () => {
    const s = await start({ faults: [{ status: 429, count: 2, retryAfter: 3, match: { path: '/v3/' } }] });
    expect((await call(s, 'POST', '/v2/translate', { text: ['x'], target_lang: 'DE' })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await call<{ message: string; code: string }>(s, 'GET', '/v3/style_rules');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('3');
      expect(r.body.code).toBe('injected_fault');
    }
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
    expect(s.requests().map((e) => [e.status, e.fault])).toEqual([
      [200, undefined],
      [429, 'status:429'],
      [429, 'status:429'],
      [200, undefined],
    ]);
  });

  it('answers 5xx and 529 as configured; count defaults to 1; a fault can match a method', async () => {
    const s = await start();
    s.addFaults(
      { status: 503, match: { method: 'POST' } },
      { status: 529, retryAfter: 1, match: { method: 'GET' } },
    );
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(529);
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
    const p = await call(s, 'POST', '/v2/translate', { text: ['x'], target_lang: 'DE' });
    expect(p.status).toBe(503);
    expect((await call(s, 'POST', '/v2/translate', { text: ['x'], target_lang: 'DE' })).status).toBe(200);
    s.addFaults({ status: 500, count: 3 });
    for (let i = 0; i < 3; i++) expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(500);
    s.addFaults({ status: 502, count: 10 });
    s.clearFaults();
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
  });

  it('drops N connections with no response, logged as status 0', async () => {
    const s = await start({ faults: [{ drop: 2 }] });
    expect(await dropped(call(s, 'GET', '/v3/style_rules'))).toBe(true);
    expect(await dropped(call(s, 'GET', '/v3/style_rules'))).toBe(true);
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
    expect(s.requests().map((e) => [e.status, e.fault])).toEqual([
      [0, 'drop'],
      [0, 'drop'],
      [200, undefined],
    ]);
  });

  it('drops an upload before its body: nothing accepted', async () => {
    const s = await start({ engine: stubEngine(), faults: [{ drop: 1, match: { path: '/v2/document' } }] });
    expect(await dropped(upload(s, 'a.txt', 'x'.repeat(200_000)))).toBe(true);
    const e = s.requests()[0]!;
    expect(e).toMatchObject({ status: 0, fault: 'drop' });
    expect(e.upload).toBeUndefined();
    const health = await call<{ documents: Record<string, number> }>(
      s,
      'GET',
      '/_locsync/health',
      undefined,
      {},
    );
    expect(Object.values(health.body.documents).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('dropAfterBody: the upload is accepted (logged with its document_id) but no answer arrives', async () => {
    const s = await start({
      engine: stubEngine(),
      faults: [{ drop: 1, dropAfterBody: true, match: { method: 'POST', path: '/v2/document' } }],
    });
    expect(await dropped(upload(s, 'a.txt', 'hello'))).toBe(true);
    const e = s.requests()[0]!;
    expect(e.status).toBe(0);
    expect(e.fault).toBe('drop-after-body');
    expect(e.upload?.document_id).toMatch(/^[0-9A-F]{32}$/);
    const health = await call<{ documents: Record<string, number> }>(
      s,
      'GET',
      '/_locsync/health',
      undefined,
      {},
    );
    expect(Object.values(health.body.documents).reduce((a, b) => a + b, 0)).toBe(1);
    expect((await upload(s, 'a.txt', 'hello')).status).toBe(200);
  });

  it('dropAfterBody on other requests: handled, then dropped', async () => {
    const s = await start({ faults: [{ drop: 1, dropAfterBody: true, match: { path: '/v3/style_rules' } }] });
    expect(await dropped(call(s, 'POST', '/v3/style_rules', { name: 'x', language: 'de' }))).toBe(true);
    const list = await call<{ style_rules: unknown[] }>(s, 'GET', '/v3/style_rules');
    expect(list.body.style_rules).toHaveLength(1);
    expect(s.requests().map((e) => [e.method, e.status, e.fault])).toEqual([
      ['POST', 0, 'drop-after-body'],
      ['GET', 200, undefined],
    ]);
  });

  it('garble: the request is handled (an upload accepted), its 2xx answer replaced by one that is not the answer', async () => {
    const s = await start({
      engine: stubEngine(),
      faults: [{ garble: 1, garbleAs: 'other-json', match: { method: 'POST', path: '/v2/document' } }],
    });
    const garbled = await upload(s, 'a.txt', 'hello');
    expect(garbled.status).toBe(200);
    expect(garbled.body).toEqual({ message: 'OK' });
    expect(s.requests()[0]).toMatchObject({ status: 200, fault: 'garble:other-json' });
    expect(s.requests()[0]?.upload?.document_id).toMatch(/^[0-9A-F]{32}$/);
    expect((await upload(s, 'a.txt', 'hello')).body.document_id).toMatch(/^[0-9A-F]{32}$/);
  });

  it('adds latency to matching requests', async () => {
    const s = await start({ faults: [{ latencyMs: 300, match: { path: '/v3/' } }] });
    let t = Date.now();
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    t = Date.now();
    await call(s, 'POST', '/v2/translate', { text: ['x'], target_lang: 'DE' });
    expect(Date.now() - t).toBeLessThan(290);
    expect(s.requests()[0]!.fault).toBe('latency:300');
  });

  it('ends the next N documents in error', async () => {
    const s = await start({ engine: stubEngine(), faults: [{ errorDocuments: 2 }] });
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await translateDocument(s, 'a.txt', 'x')).final);
    expect(results.map((r) => r.status)).toEqual(['error', 'error', 'done']);
    expect(results[0]!.message).toMatch(/Injected fault/);
  });

  it('reports absurd seconds_remaining (2^27) while translating', async () => {
    const s = await start({
      engine: stubEngine(),
      translateSeconds: 5,
      faults: [{ absurdSecondsRemaining: true }],
    });
    const up = await upload(s, 'a.txt', 'x');
    let st = await status(s, up.body.document_id, up.body.document_key);
    while (st.body.status === 'queued') st = await status(s, up.body.document_id, up.body.document_key);
    expect(st.body).toMatchObject({ status: 'translating', seconds_remaining: 2 ** 27 });
  });
});

/** A download read with node:http: its Content-Length, the bytes that came, and how it ended. */
function rawDownload(
  s: { url: string },
  id: string,
  key: string,
): Promise<{ status: number; announced: string | undefined; bytes: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${s.url}/v2/document/${id}/result`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let bytes = 0;
      const done = () =>
        resolve({
          status: res.statusCode ?? 0,
          announced: res.headers['content-length'],
          bytes,
          complete: res.complete,
        });
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', done);
      res.on('error', done); // cut: "aborted"
    });
    req.end(JSON.stringify({ document_key: key }));
  });
}

describe('cut downloads (cutDownloads, cutAfterBytes)', () => {
  it('announces the whole document in Content-Length, sends part of it, closes; the document is gone', async () => {
    const s = await start({ engine: stubEngine(), faults: [{ cutDownloads: 1, cutAfterBytes: 5 }] });
    const doc = await translateDocument(s, 'a.txt', 'a document of some length');
    const cut = await rawDownload(s, doc.document_id, doc.document_key);
    expect(cut).toMatchObject({ status: 200, bytes: 5, complete: false });
    expect(Number(cut.announced)).toBeGreaterThan(5);
    // Downloaded once: the rest is lost with the connection.
    expect((await rawDownload(s, doc.document_id, doc.document_key)).status).toBe(404);
    expect(
      s
        .requests()
        .filter((r) => r.path.endsWith('/result'))
        .map((r) => [r.status, r.fault]),
    ).toEqual([
      [0, 'cut-after:5'],
      [404, undefined],
    ]);
    // The count is used up: the next download is whole.
    const next = await translateDocument(s, 'b.txt', 'another document');
    const whole = await rawDownload(s, next.document_id, next.document_key);
    expect(whole).toMatchObject({ status: 200, complete: true });
    expect(whole.bytes).toBe(Number(whole.announced));
  });

  it('the header item cut-after=N cuts one download', async () => {
    const s = await start({ engine: stubEngine() });
    const doc = await translateDocument(s, 'a.txt', 'a document of some length');
    const r = await call(
      s,
      'POST',
      `/v2/document/${doc.document_id}/result`,
      { document_key: doc.document_key },
      {
        ...AUTH,
        [FAULT]: 'cut-after=3',
      },
    ).catch((err: unknown) => err);
    expect(r).toBeInstanceOf(TypeError); // fetch: the body ended early
    // Logged once the server saw its connection close.
    for (let i = 0; i < 100 && !s.requests().some((e) => e.path.endsWith('/result')); i++) await sleep(10);
    expect(s.requests().at(-1)).toMatchObject({ status: 0, fault: 'cut-after:3' });
  });
});

describe('per-request faults (X-Locsync-Fault header)', () => {
  it('status=503 and status=429;retry-after=2', async () => {
    const s = await start();
    const a = await call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'status=503' });
    expect(a.status).toBe(503);
    const b = await call(s, 'GET', '/v3/style_rules', undefined, {
      ...AUTH,
      [FAULT]: 'status=429;retry-after=2',
    });
    expect(b.status).toBe(429);
    expect(b.headers.get('retry-after')).toBe('2');
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
  });

  it('garble, garble=truncated|empty|other-json: a 2xx answer garbled, an error answer left alone', async () => {
    const s = await start();
    const page = await call(
      s,
      'POST',
      '/v3/style_rules',
      { name: 'x', language: 'de' },
      {
        ...AUTH,
        [FAULT]: 'garble',
      },
    );
    expect(page.status).toBe(201);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toMatch(/^<html>/);
    const whole = await call(s, 'GET', '/v3/style_rules');
    expect((whole.body as { style_rules: unknown[] }).style_rules).toHaveLength(1);
    const cut = await call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'garble=truncated' });
    expect(cut.text).toBe(whole.text.slice(0, Math.floor(whole.text.length / 2)));
    expect(
      (await call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'garble=empty' })).text,
    ).toBe('');
    const missing = await call(s, 'GET', '/v3/style_rules/nope', undefined, { ...AUTH, [FAULT]: 'garble' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: expect.any(String) });
    expect(s.requests().map((e) => e.fault)).toEqual([
      'garble:html',
      undefined,
      'garble:truncated',
      'garble:empty',
      'garble:html',
    ]);
    expect(
      (await call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'garble=nope' })).status,
    ).toBe(400);
  });

  it('drop, drop-after-body, latency', async () => {
    const s = await start({ engine: stubEngine() });
    expect(await dropped(call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'drop' }))).toBe(
      true,
    );
    expect(
      await dropped(upload(s, 'a.txt', 'x', { target_lang: 'DE' }, { ...AUTH, [FAULT]: 'drop-after-body' })),
    ).toBe(true);
    expect(s.requests().at(-1)?.upload?.document_id).toBeDefined();
    const t = Date.now();
    expect(
      (await call(s, 'GET', '/v3/style_rules', undefined, { ...AUTH, [FAULT]: 'latency=250' })).status,
    ).toBe(200);
    expect(Date.now() - t).toBeGreaterThanOrEqual(240);
  });

  it('doc-error and absurd-eta on an upload; absurd-eta on a status request', async () => {
    const s = await start({ engine: stubEngine(), translateSeconds: 3 });
    const bad = await upload(s, 'a.txt', 'x', { target_lang: 'DE' }, { ...AUTH, [FAULT]: 'doc-error' });
    expect((await waitFinished(s, bad.body.document_id, bad.body.document_key)).status).toBe('error');
    const odd = await upload(s, 'a.txt', 'x', { target_lang: 'DE' }, { ...AUTH, [FAULT]: 'absurd-eta' });
    let st = await status(s, odd.body.document_id, odd.body.document_key);
    while (st.body.status === 'queued') st = await status(s, odd.body.document_id, odd.body.document_key);
    expect(st.body.seconds_remaining).toBe(2 ** 27);
    const plain = await upload(s, 'a.txt', 'x');
    st = await status(s, plain.body.document_id, plain.body.document_key);
    while (st.body.status === 'queued') st = await status(s, plain.body.document_id, plain.body.document_key);
    expect(st.body.seconds_remaining).toBeLessThan(10);
    const asked = await status(s, plain.body.document_id, plain.body.document_key, {
      ...AUTH,
      [FAULT]: 'absurd-eta',
    });
    expect(asked.body.seconds_remaining).toBe(2 ** 27);
  });

  it('rejects an unknown header item with 400', async () => {
    const s = await start();
    const r = await call<{ code: string }>(s, 'GET', '/v3/style_rules', undefined, {
      ...AUTH,
      [FAULT]: 'explode',
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_fault');
  });
});

describe('control endpoints', () => {
  const K = { Authorization: `Service-Auth-Key ${KEY}` };

  it('GET /_locsync/health needs no key', async () => {
    const s = await start();
    const r = await call<{ ok: boolean; plan: string; documents: Record<string, number> }>(
      s,
      'GET',
      '/_locsync/health',
      undefined,
      {},
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ok: true,
      plan: 'pro',
      documents: { queued: 0, translating: 0, done: 0, error: 0, downloaded: 0 },
    });
  });

  it('the other control endpoints need the key and are not logged', async () => {
    const s = await start();
    for (const [m, p] of [
      ['GET', '/_locsync/requests'],
      ['DELETE', '/_locsync/requests'],
      ['POST', '/_locsync/faults'],
      ['DELETE', '/_locsync/faults'],
      ['GET', '/_locsync/faults'],
    ])
      expect((await call(s, m!, p!, m === 'POST' ? { status: 500 } : undefined, {})).status).toBe(403);
    expect(s.requests()).toEqual([]);
  });

  it('POST /_locsync/faults (object or array), GET and DELETE them', async () => {
    const s = await start();
    const one = await call<{ faults: unknown[] }>(
      s,
      'POST',
      '/_locsync/faults',
      { status: 503, count: 1 },
      K,
    );
    expect(one.status).toBe(200);
    expect(one.body.faults).toHaveLength(1);
    const two = await call<{ faults: unknown[] }>(
      s,
      'POST',
      '/_locsync/faults',
      [{ latencyMs: 1 }, { drop: 1, dropAfterBody: true }],
      K,
    );
    expect(two.body.faults).toHaveLength(3);
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(503);
    const listed = await call<{ faults: Array<{ left: { status: number } }> }>(
      s,
      'GET',
      '/_locsync/faults',
      undefined,
      K,
    );
    expect(listed.body.faults[0]!.left.status).toBe(0);
    expect((await call(s, 'DELETE', '/_locsync/faults', undefined, K)).status).toBe(204);
    expect((await call(s, 'GET', '/v3/style_rules')).status).toBe(200);
    for (const bad of [{ status: 'x' }, { nope: 1 }, [1], { match: 'x' }, { drop: -1 }, { garbleAs: 'x' }])
      expect((await call(s, 'POST', '/_locsync/faults', bad, K)).status).toBe(400);
  });

  it('GET /_locsync/requests lists the log, DELETE clears it', async () => {
    const s = await start();
    await call(s, 'GET', '/v3/style_rules');
    await call(s, 'GET', '/v3/style_rules', undefined, {});
    const r = await call<{
      requests: Array<{ seq: number; method: string; path: string; status: number; time: string }>;
    }>(s, 'GET', '/_locsync/requests', undefined, K);
    expect(r.body.requests.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', '/v3/style_rules', 200],
      ['GET', '/v3/style_rules', 403],
    ]);
    expect(r.body.requests[1]!.seq).toBeGreaterThan(r.body.requests[0]!.seq);
    expect((await call(s, 'DELETE', '/_locsync/requests', undefined, K)).status).toBe(204);
    expect(s.requests()).toEqual([]);
    s.clearRequests();
  });

  it('logs unknown API paths as 404 with {message, code}', async () => {
    const s = await start();
    const r = await call<{ message: string; code: string }>(s, 'GET', '/v2/nope');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
    expect(s.requests()[0]).toMatchObject({ path: '/v2/nope', status: 404 });
  });
});

describe('bad-output faults (docs/qa.md)', () => {
  const SOURCE = 'First line to translate.\nSecond line.\nThird line.\nFourth line.\n';
  async function badDownload(headers: Record<string, string>, faults?: Parameters<typeof start>[0]) {
    const s = await start(faults);
    const up = await upload(s, 'a.txt', SOURCE, { target_lang: 'DE' }, headers);
    expect(up.status).toBe(200);
    expect((await waitFinished(s, up.body.document_id, up.body.document_key)).status).toBe('done');
    const r = await call(s, 'POST', `/v2/document/${up.body.document_id}/result`, {
      document_key: up.body.document_key,
    });
    return r.text;
  }

  it('the header item bad-output= makes one document come back untranslated, truncated or without most segments', async () => {
    const good = await badDownload({ ...AUTH });
    expect(good).not.toBe(SOURCE);
    expect(await badDownload({ ...AUTH, [FAULT]: 'bad-output=untranslated' })).toBe(SOURCE);
    const truncated = await badDownload({ ...AUTH, [FAULT]: 'bad-output=truncated' });
    expect(Buffer.byteLength(truncated)).toBeLessThanOrEqual(Math.floor(Buffer.byteLength(good) / 2));
    const dropped = await badDownload({ ...AUTH, [FAULT]: 'bad-output=dropped-segments' });
    expect(dropped.split('\n').filter((l) => l.trim() !== '')).toHaveLength(1);
    const refused = await upload(
      await start(),
      'a.txt',
      SOURCE,
      { target_lang: 'DE' },
      {
        ...AUTH,
        [FAULT]: 'bad-output=odd',
      },
    );
    expect(refused.status).toBe(400);
  });

  it('the server-wide fault badOutput applies to the next matching uploads only', async () => {
    const s = await start({ faults: [{ badOutput: 'untranslated', badOutputFor: '.txt', badOutputs: 1 }] });
    const first = await translateDocument(s, 'a.txt', SOURCE);
    const r1 = await call(s, 'POST', `/v2/document/${first.document_id}/result`, {
      document_key: first.document_key,
    });
    expect(r1.text).toBe(SOURCE);
    const second = await translateDocument(s, 'b.txt', SOURCE);
    const r2 = await call(s, 'POST', `/v2/document/${second.document_id}/result`, {
      document_key: second.document_key,
    });
    expect(r2.text).not.toBe(SOURCE);
  });
});
