import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { AUTH, call, download, start, status, translateDocument, upload, waitFinished } from './helpers.js';
import { stubEngine } from './stub-engine.js';

type Err = { message: string; code: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('document lifecycle', () => {
  it('queued -> translating (seconds_remaining) -> done (billed_characters) -> download once', async () => {
    const s = await start({ queueSeconds: 0.3, translateSeconds: 3, engine: stubEngine() });
    const up = await upload(s, 'notes.txt', 'Hello world', { target_lang: 'DE' });
    expect(up.status).toBe(200);
    expect(Object.keys(up.body).sort()).toEqual(['document_id', 'document_key']);
    const { document_id: id, document_key: key } = up.body;

    const q = await status(s, id, key);
    expect(q.status).toBe(200);
    expect(q.body).toEqual({ document_id: id, status: 'queued' });
    const early = await download(s, id, key);
    expect(early.status).toBe(503);
    expect((early.body as Err).code).toBe('document_not_ready');

    await sleep(500);
    const t = await status(s, id, key);
    expect(t.body.status).toBe('translating');
    expect(Object.keys(t.body).sort()).toEqual(['document_id', 'seconds_remaining', 'status']);
    expect(t.body.seconds_remaining).toBeGreaterThanOrEqual(1);
    expect(t.body.seconds_remaining).toBeLessThanOrEqual(3);
    expect((await download(s, id, key)).status).toBe(503);

    const done = await waitFinished(s, id, key);
    expect(done).toEqual({ document_id: id, status: 'done', billed_characters: 11 });

    const r = await fetch(`${s.url}/v2/document/${id}/result`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ document_key: key }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('content-disposition')).toContain('filename="notes.txt"');
    expect(await r.text()).toBe('[de] Hello world');

    const again = await download(s, id, key);
    expect(again.status).toBe(404);
    expect((again.body as Err).code).toBe('document_downloaded');
    expect((await status(s, id, key)).status).toBe(404);
  });

  it('answers 404 for an unknown id or a wrong key, 400 without a key', async () => {
    const s = await start({ engine: stubEngine() });
    const up = await upload(s, 'a.txt', 'x');
    const { document_id: id, document_key: key } = up.body;
    for (const r of [
      await status(s, 'NOPE', key),
      await status(s, id, key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')),
      await status(s, id, 'short'),
      await download(s, 'NOPE', key),
      await download(s, id, 'wrong'),
    ]) {
      expect(r.status).toBe(404);
      expect((r.body as Err).code).toBe('document_not_found');
    }
    expect((await call(s, 'POST', `/v2/document/${id}`, {})).status).toBe(400);
    expect((await call(s, 'POST', `/v2/document/${id}`, { document_key: 5 })).status).toBe(400);
    expect((await status(s, id, key, {})).status).toBe(403);
    // form-encoded document_key works too (curl -d document_key=...)
    const form = await fetch(`${s.url}/v2/document/${id}`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `document_key=${key}`,
    });
    expect(form.status).toBe(200);
  });

  it('translates up to `workers` documents at once', async () => {
    const engine = stubEngine({ delayMs: 150 });
    const s = await start({ workers: 2, engine });
    const ups = await Promise.all([1, 2, 3, 4, 5].map((i) => upload(s, `f${i}.txt`, `text ${i}`)));
    for (const u of ups)
      expect((await waitFinished(s, u.body.document_id, u.body.document_key)).status).toBe('done');
    expect(engine.calls).toHaveLength(5);
    expect(engine.maxConcurrent).toBe(2);
  });

  it('ends a document the engine cannot read in `error` with its message, and keeps serving', async () => {
    const s = await start({ engine: stubEngine({ fail: 'corrupt zip: no central directory' }) });
    const d = await translateDocument(s, 'broken.docx', 'not a zip');
    expect(d.final).toEqual({
      document_id: d.document_id,
      status: 'error',
      message: 'corrupt zip: no central directory',
      error_message: 'corrupt zip: no central directory',
    });
    const dl = await download(s, d.document_id, d.document_key);
    expect(dl.status).toBe(400);
    expect((dl.body as Err).code).toBe('document_error');
    const crash = await start({ engine: stubEngine({ crash: true }) });
    const c = await translateDocument(crash, 'a.txt', 'x');
    expect(c.final.status).toBe('error');
    expect(c.final.message).toBe('engine bug');
    expect((await call(crash, 'GET', '/v3/style_rules')).status).toBe(200);
  });

  it('translates a txt end to end with the real engine', async () => {
    const s = await start();
    const d = await translateDocument(s, 'hello.txt', 'Hello world\n', {
      target_lang: 'DE',
      source_lang: 'EN',
    });
    expect(d.final.status).toBe('done');
    const r = await download(s, d.document_id, d.document_key);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeGreaterThan(0);
    expect(r.text).not.toBe('Hello world\n');
  });
});

describe('document upload rules', () => {
  it('accepts every input extension of the spec, case-insensitive; doc becomes docx', async () => {
    const s = await start({ engine: stubEngine() });
    const exts = [
      'docx',
      'doc',
      'pptx',
      'xlsx',
      'pdf',
      'htm',
      'html',
      'txt',
      'xlf',
      'xliff',
      'srt',
      'jpeg',
      'jpg',
      'png',
    ];
    for (const ext of exts) {
      for (const name of [`file.${ext}`, `FILE.${ext.toUpperCase()}`]) {
        const d = await translateDocument(s, name, 'content');
        expect(d.final.status, name).toBe('done');
        const r = await fetch(`${s.url}/v2/document/${d.document_id}/result`, {
          method: 'POST',
          headers: { ...AUTH, 'Content-Type': 'application/json' },
          body: JSON.stringify({ document_key: d.document_key }),
        });
        expect(r.status).toBe(200);
        const outExt = ext === 'doc' ? 'docx' : ext;
        expect(r.headers.get('content-disposition')?.toLowerCase()).toContain(`filename="file.${outExt}"`);
        await r.arrayBuffer();
      }
    }
    const bad = await upload(s, 'x.exe', 'MZ');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('unsupported_file_type');
    expect((await upload(s, 'noextension', 'x')).status).toBe(400);
  });

  it('sends sensible content types', async () => {
    const s = await start({ engine: stubEngine() });
    const expected: Record<string, string> = {
      docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      pdf: 'application/pdf',
      html: 'text/html; charset=utf-8',
      png: 'image/png',
      xlf: 'application/xliff+xml',
    };
    for (const [ext, type] of Object.entries(expected)) {
      const d = await translateDocument(s, `a.${ext}`, 'x');
      const r = await download(s, d.document_id, d.document_key);
      expect(r.headers.get('content-type')).toBe(type);
    }
  });

  it('takes the name from the filename part when given, and keeps non-ASCII names', async () => {
    const s = await start({ engine: stubEngine() });
    const d = await translateDocument(s, 'blob.bin', 'hello', {
      target_lang: 'DE',
      filename: 'Übersicht.txt',
    });
    expect(d.final.status).toBe('done');
    const r = await download(s, d.document_id, d.document_key);
    expect(r.headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent('Übersicht.txt')}`,
    );
  });

  it('requires a file and target_lang; rejects unknown languages and non-multipart bodies', async () => {
    const s = await start({ engine: stubEngine() });
    const noFile = await upload(s, undefined, '', { target_lang: 'DE' });
    expect(noFile.status).toBe(400);
    expect(noFile.body.message).toMatch(/file/);
    const noTarget = await upload(s, 'a.txt', 'x', {});
    expect(noTarget.status).toBe(400);
    expect(noTarget.body.message).toMatch(/target_lang/);
    expect((await upload(s, 'a.txt', 'x', { target_lang: 'KLINGON' })).status).toBe(400);
    expect((await upload(s, 'a.txt', 'x', { target_lang: 'DE', source_lang: 'XX' })).status).toBe(400);
    const json = await call<Err>(s, 'POST', '/v2/document', { target_lang: 'DE' });
    expect(json.status).toBe(400);
    expect(json.body.code).toBe('invalid_content_type');
  });

  it('output_format: pdf may become docx, every input may keep its format, nothing else', async () => {
    const s = await start({ engine: stubEngine() });
    const pdf = await translateDocument(s, 'a.pdf', 'x', { target_lang: 'DE', output_format: 'docx' });
    expect(pdf.final.status).toBe('done');
    const r = await download(s, pdf.document_id, pdf.document_key);
    expect(r.headers.get('content-disposition')).toContain('filename="a.docx"');
    expect(r.headers.get('content-type')).toContain('wordprocessingml');
    expect((await upload(s, 'a.pdf', 'x', { target_lang: 'DE', output_format: 'PDF' })).status).toBe(200);
    expect((await upload(s, 'a.html', 'x', { target_lang: 'DE', output_format: 'html' })).status).toBe(200);
    expect((await upload(s, 'a.doc', 'x', { target_lang: 'DE', output_format: 'docx' })).status).toBe(200);
    for (const [name, of] of [
      ['a.docx', 'pdf'],
      ['a.txt', 'docx'],
      ['a.pdf', 'txt'],
      ['a.pdf', 'exe'],
      ['a.doc', 'doc'],
    ]) {
      const bad = await upload(s, name, 'x', { target_lang: 'DE', output_format: of });
      expect(bad.status, `${name} -> ${of}`).toBe(400);
      expect(bad.body.code).toBe('invalid_output_format');
    }
  });

  it('formality: more/less only for supporting target languages, prefer_* anywhere', async () => {
    const s = await start({ engine: stubEngine() });
    for (const t of ['DE', 'FR', 'IT', 'ES', 'NL', 'PL', 'PT-BR', 'PT-PT', 'JA', 'RU'])
      for (const f of ['more', 'less'])
        expect((await upload(s, 'a.txt', 'x', { target_lang: t, formality: f })).status, `${t} ${f}`).toBe(
          200,
        );
    for (const t of ['EN-US', 'EN-GB', 'ZH', 'KO', 'SV']) {
      for (const f of ['more', 'less']) {
        const r = await upload(s, 'a.txt', 'x', { target_lang: t, formality: f });
        expect(r.status, `${t} ${f}`).toBe(400);
        expect(r.body.code).toBe('formality_not_supported');
      }
      for (const f of ['prefer_more', 'prefer_less', 'default'])
        expect((await upload(s, 'a.txt', 'x', { target_lang: t, formality: f })).status).toBe(200);
    }
    expect((await upload(s, 'a.txt', 'x', { target_lang: 'DE', formality: 'rude' })).status).toBe(400);
  });

  it('source equal to target ends the job in error with a message', async () => {
    const s = await start({ engine: stubEngine() });
    for (const [source, target] of [
      ['DE', 'DE'],
      ['EN', 'EN-GB'],
    ]) {
      const d = await translateDocument(s, 'a.txt', 'x', { target_lang: target, source_lang: source });
      expect(d.final.status).toBe('error');
      expect(d.final.message).toMatch(/Source and target language are equal/);
    }
  });

  it('glossary_id requires source_lang and a glossary that exists', async () => {
    const s = await start({ engine: stubEngine() });
    const r = await upload(s, 'a.txt', 'x', { target_lang: 'DE', glossary_id: 'g1' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('glossary_requires_source_lang');
    const malformed = await upload(s, 'a.txt', 'x', {
      target_lang: 'DE',
      source_lang: 'EN',
      glossary_id: 'g1',
    });
    expect(malformed.body.code).toBe('invalid_glossary_id');
    const unknown = await upload(s, 'a.txt', 'x', {
      target_lang: 'DE',
      source_lang: 'EN',
      glossary_id: '96ab91fd-e715-41a1-adeb-5d701f84a483',
    });
    expect(unknown.status).toBe(404);
  });

  it('ignores model_type and enable_beta_languages', async () => {
    const s = await start({ engine: stubEngine() });
    expect(
      (
        await upload(s, 'a.txt', 'x', {
          target_lang: 'DE',
          model_type: 'latency_optimized',
          enable_beta_languages: 'true',
        })
      ).status,
    ).toBe(200);
  });

  it('style_id: must exist (404), language must match (400), rules reach the engine, 403 on free', async () => {
    const engine = stubEngine();
    const s = await start({ engine });
    const rules = { dates_and_times: { time_format: 'use_24_hour_clock' } };
    const style = (
      await call<{ style_id: string }>(s, 'POST', '/v3/style_rules', {
        name: 'x',
        language: 'de',
        configured_rules: rules,
      })
    ).body.style_id;
    const d = await translateDocument(s, 'a.txt', 'x', { target_lang: 'DE', style_id: style });
    expect(d.final.status).toBe('done');
    expect(engine.calls.at(-1)?.style?.configured_rules).toEqual(rules);
    const missing = await upload(s, 'a.txt', 'x', { target_lang: 'DE', style_id: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('style_not_found');
    const mismatch = await upload(s, 'a.txt', 'x', { target_lang: 'FR', style_id: style });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('style_language_mismatch');
    const free = await start({ plan: 'free', engine });
    const f = await upload(free, 'a.txt', 'x', { target_lang: 'DE', style_id: style });
    expect(f.status).toBe(403);
    expect(f.body.message).toMatch(/pro/);
  });
});

describe('billing', () => {
  it('bills at least 50,000 characters for pptx, docx, doc, xlsx and pdf', async () => {
    const s = await start({ engine: stubEngine({ characters: 1234 }) });
    for (const ext of ['pptx', 'docx', 'doc', 'xlsx', 'pdf', 'PDF'])
      expect((await translateDocument(s, `a.${ext}`, 'x')).final.billed_characters, ext).toBe(50_000);
    for (const ext of ['txt', 'html', 'htm', 'srt', 'xlf', 'xliff'])
      expect((await translateDocument(s, `a.${ext}`, 'x')).final.billed_characters, ext).toBe(1234);
    const big = await start({ engine: stubEngine({ characters: 77_777 }) });
    expect((await translateDocument(big, 'a.docx', 'x')).final.billed_characters).toBe(77_777);
  });
});

describe('limits', () => {
  it('answers 413 over the configured size limit of the extension', async () => {
    const s = await start({ engine: stubEngine(), uploadLimits: { txt: 100, docx: 200 } });
    expect((await upload(s, 'a.txt', 'x'.repeat(100))).status).toBe(200);
    const big = await upload(s, 'a.txt', 'x'.repeat(101));
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('file_too_large');
    expect((await upload(s, 'a.docx', 'x'.repeat(150))).status).toBe(200);
    expect((await upload(s, 'a.docx', 'x'.repeat(201))).status).toBe(413);
    // the filename part decides the extension even when it comes after the file
    const fd = new FormData();
    fd.append('target_lang', 'DE');
    fd.append('file', new Blob(['x'.repeat(150)]), 'a.docx');
    fd.append('filename', 'a.txt');
    expect((await fetch(`${s.url}/v2/document`, { method: 'POST', headers: AUTH, body: fd })).status).toBe(
      413,
    );
  });

  it('defaults: 1 MB for txt, 30 MB for docx', async () => {
    const s = await start({ engine: stubEngine() });
    const MB = 1024 * 1024;
    expect((await upload(s, 'a.txt', new Uint8Array(MB))).status).toBe(200);
    expect((await upload(s, 'a.txt', new Uint8Array(MB + 1))).status).toBe(413);
    expect((await upload(s, 'a.docx', new Uint8Array(MB + 1))).status).toBe(200);
    expect((await upload(s, 'a.docx', new Uint8Array(30 * MB + 1))).status).toBe(413);
    expect(s.requests().filter((r) => r.status === 413)).toHaveLength(2);
  });

  it('answers 429 with Retry-After while too many translated documents wait for download', async () => {
    const s = await start({ engine: stubEngine(), maxUndownloaded: 2 });
    const a = await translateDocument(s, 'a.txt', 'a');
    await translateDocument(s, 'b.txt', 'b');
    const r = await upload(s, 'c.txt', 'c');
    expect(r.status).toBe(429);
    expect(r.body.code).toBe('too_many_documents');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await download(s, a.document_id, a.document_key)).status).toBe(200);
    expect((await upload(s, 'c.txt', 'c')).status).toBe(200);
    const uploads = s.requests().filter((e) => e.path === '/v2/document');
    expect(uploads.map((e) => e.status)).toEqual([200, 200, 429, 200]);
    expect(uploads[2]!.upload).toBeUndefined();
  });
});

describe('interrupted uploads', () => {
  it('a client that disconnects mid-upload leaves no job and no partial file, and the service goes on', async () => {
    const dir = await mkdtemp(`${tmpdir()}/locsync-abort-`);
    const s = await start({ engine: stubEngine(), dataDir: dir });
    const url = new URL(s.url);
    const boundary = 'xyz';
    const req = request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/v2/document',
      headers: {
        ...AUTH,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': '10000000',
      },
    });
    req.on('error', () => {});
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="target_lang"\r\n\r\nDE\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.docx"\r\n\r\n`);
    req.write(Buffer.alloc(500_000, 'x'));
    await sleep(200);
    req.destroy();
    await sleep(200);
    const health = await call<{ documents: Record<string, number> }>(
      s,
      'GET',
      '/_locsync/health',
      undefined,
      {},
    );
    expect(Object.values(health.body.documents).reduce((a, b) => a + b, 0)).toBe(0);
    expect(await readdir(`${dir}/files`)).toEqual([]);
    expect(s.requests()[0]!.status).toBe(0);
    expect((await upload(s, 'a.txt', 'x')).status).toBe(200);
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });
});

describe('request log of uploads', () => {
  it('records filename, sha256, bytes, target_lang and document_id', async () => {
    const s = await start({ engine: stubEngine() });
    const content = 'some content to hash';
    const up = await upload(s, 'doc.txt', content, { target_lang: 'FR' });
    const e = s.requests().find((r) => r.path === '/v2/document')!;
    expect(e.status).toBe(200);
    expect(e.upload).toEqual({
      filename: 'doc.txt',
      sha256: createHash('sha256').update(content).digest('hex'),
      bytes: content.length,
      target_lang: 'FR',
      document_id: up.body.document_id,
    });
    expect(e.documentId).toBe(up.body.document_id);
    const rejected = await upload(s, 'doc.txt', content, { target_lang: 'XX' });
    expect(rejected.status).toBe(400);
    const last = s.requests().at(-1)!;
    expect(last.status).toBe(400);
    expect(last.upload?.document_id).toBeUndefined();
    expect(last.upload?.sha256).toBe(e.upload!.sha256);
  });
});
