// What the local service does as the real service does, where our spec is silent: the scheme
// word DeepL-Auth-Key, /v2/usage and its quota, /v2/languages, text translation parameters, the
// official mock's session headers.
import { describe, expect, it } from 'vitest';
import { startService } from '../../src/local-service/index.js';
import { AUTH, call, KEY, start, status, translateDocument, upload, waitFinished } from './helpers.js';

type Translation = {
  detected_source_language: string;
  text: string;
  billed_characters?: number;
  model_type_used?: string;
};
type Translated = { translations: Translation[] };
type Err = { message: string; code: string };

const DEEPL_AUTH = { Authorization: `DeepL-Auth-Key ${KEY}` };

function translate(
  s: { url: string },
  body: Record<string, unknown>,
  headers: Record<string, string> = AUTH,
) {
  return call<Translated & Err>(s as never, 'POST', '/v2/translate', body, headers);
}

describe('authorization', () => {
  it('accepts the real service scheme word DeepL-Auth-Key as well as Service-Auth-Key', async () => {
    const s = await start();
    expect((await call(s, 'GET', '/v2/usage', undefined, DEEPL_AUTH)).status).toBe(200);
    expect(
      (await call(s, 'GET', '/v2/usage', undefined, { Authorization: 'DeepL-Auth-Key wrong' })).status,
    ).toBe(403);
    expect((await call(s, 'GET', '/v2/usage', undefined, { Authorization: `Bearer ${KEY}` })).status).toBe(
      403,
    );
  });

  it('without a configured key, any key is accepted but "invalid", which the official mock refuses too', async () => {
    const s = await startService({ queueSeconds: 0, translateSeconds: 0 });
    try {
      const usage = (key: string) =>
        call(s as never, 'GET', '/v2/usage', undefined, { Authorization: `DeepL-Auth-Key ${key}` });
      expect((await usage('a-random-session-key')).status).toBe(200);
      expect((await usage('invalid')).status).toBe(403);
      expect((await usage('Invalid')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('GET /v2/usage and the character limit', () => {
  it('reports characters used against the limit, and answers 456 beyond it', async () => {
    const s = await start({ characterLimit: 30 });
    expect((await call(s, 'GET', '/v2/usage')).body).toMatchObject({
      character_count: 0,
      character_limit: 30,
    });
    expect(
      (await translate(s, { text: ['x'.repeat(20)], target_lang: 'DE', source_lang: 'EN' })).status,
    ).toBe(200);
    expect((await call(s, 'GET', '/v2/usage')).body).toMatchObject({
      character_count: 20,
      character_limit: 30,
    });
    const over = await translate(s, { text: ['y'.repeat(11)], target_lang: 'DE', source_lang: 'EN' });
    expect(over.status).toBe(456);
    expect(over.body.code).toBe('quota_exceeded');
    expect((await call(s, 'GET', '/v2/usage')).body).toMatchObject({
      character_count: 20,
      character_limit: 30,
    });
    // documents count when done; an upload once the limit is reached is refused
    const doc = await translateDocument(s, 'a.txt', 'z'.repeat(10), { target_lang: 'DE', source_lang: 'EN' });
    expect(doc.final.status).toBe('done');
    expect((await call(s, 'GET', '/v2/usage')).body).toMatchObject({
      character_count: 30,
      character_limit: 30,
    });
    expect((await upload(s, 'b.txt', 'more', { target_lang: 'DE', source_lang: 'EN' })).status).toBe(456);
  });

  it('reports a practically unlimited limit by default', async () => {
    const s = await start();
    expect((await call(s, 'GET', '/v2/usage')).body).toMatchObject({
      character_count: 0,
      character_limit: 1e12,
    });
  });
});

describe('GET /v2/languages', () => {
  it('lists source languages with names, targets with formality support', async () => {
    const s = await start();
    const sources = await call<Array<{ language: string; name: string }>>(
      s,
      'GET',
      '/v2/languages?type=source',
    );
    expect(sources.body).toContainEqual({ language: 'EN', name: 'English' });
    expect(sources.body.find((l) => l.language === 'EN-GB')).toBeUndefined();
    const targets = await call<Array<{ language: string; name: string; supports_formality: boolean }>>(
      s,
      'GET',
      '/v2/languages?type=target',
    );
    expect(targets.body).toContainEqual({ language: 'DE', name: 'German', supports_formality: true });
    expect(targets.body).toContainEqual({
      language: 'EN-GB',
      name: 'English (British)',
      supports_formality: false,
    });
    expect(targets.body.find((l) => l.language === 'EN')).toBeUndefined();
    expect((await call(s, 'GET', '/v2/languages?type=other')).status).toBe(400);
  });
});

describe('POST /v2/translate, beyond the spec', () => {
  it('detects the source language of each text, bills each text, tells the model used', async () => {
    const s = await start();
    const r = await translate(s, {
      text: ['The artist was awarded a prize.', 'Le chat dort sur le canapé depuis ce matin.'],
      target_lang: 'DE',
      show_billed_characters: true,
      model_type: 'prefer_quality_optimized',
    });
    expect(r.status).toBe(200);
    expect(r.body.translations.map((t) => t.detected_source_language)).toEqual(['EN', 'FR']);
    expect(r.body.translations.map((t) => t.billed_characters)).toEqual([31, 43]);
    expect(r.body.translations.every((t) => t.model_type_used === 'quality_optimized')).toBe(true);
  });

  it('refuses an invalid split_sentences, tag_handling or tag_handling_version, naming it', async () => {
    const s = await start();
    for (const [field, value] of [
      ['split_sentences', 'invalid'],
      ['tag_handling', 'json'],
      ['tag_handling_version', 'v9'],
    ]) {
      const r = await translate(s, { text: ['Hello'], target_lang: 'DE', [field!]: value });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain(field);
    }
    for (const value of ['0', '1', 'nonewlines'])
      expect(
        (await translate(s, { text: ['Hello'], target_lang: 'DE', split_sentences: value })).status,
      ).toBe(200);
  });

  it('keeps ignore_tags elements (xml) and translate="no" elements (html) as they are', async () => {
    const s = await start();
    const xml = await translate(s, {
      text: ['<doc><title>A title</title><raw>Keep this sentence.</raw></doc>'],
      target_lang: 'DE',
      source_lang: 'EN',
      tag_handling: 'xml',
      ignore_tags: ['raw'],
    });
    expect(xml.body.translations[0]!.text).toContain('<raw>Keep this sentence.</raw>');
    expect(xml.body.translations[0]!.text).not.toContain('A title');
    const html = await translate(s, {
      text: [
        '<!DOCTYPE html>\n<html><body><h1>My Heading</h1><p translate="no">My paragraph.</p></body></html>',
      ],
      target_lang: 'DE',
      source_lang: 'EN',
      tag_handling: 'html',
    });
    const out = html.body.translations[0]!.text;
    expect(out).toContain('<!DOCTYPE html>');
    expect(out).toContain('<p translate="no">My paragraph.</p>');
    expect(out).not.toContain('My Heading');
    // without tag_handling the element names mean nothing
    const plain = await translate(s, {
      text: ['<raw>Keep this sentence.</raw>'],
      target_lang: 'DE',
      source_lang: 'EN',
      ignore_tags: 'raw',
    });
    expect(plain.body.translations[0]!.text).not.toContain('Keep this sentence.');
  });

  it('answers the same at /v2/translate_secondary (as the official mock)', async () => {
    const s = await start();
    const r = await call<Translated>(s, 'POST', '/v2/translate_secondary', {
      text: ['Hello'],
      target_lang: 'DE',
    });
    expect(r.status).toBe(200);
    expect(r.body.translations).toHaveLength(1);
  });
});

describe('documents, beyond the spec', () => {
  it('refuses a document in the target language when no source_lang is given (detected)', async () => {
    const s = await start();
    const doc = await translateDocument(
      s,
      'de.txt',
      'Grüße aus München, wie geht es dir heute? Das Wetter ist schön.',
      {
        target_lang: 'DE',
      },
    );
    expect(doc.final.status).toBe('error');
    expect(doc.final.message).toMatch(/^Source and target language are equal \(DE -> DE\)/);
    expect((doc.final as Record<string, unknown>).error_message).toBe(doc.final.message);
  });

  it('says the file extension is not supported in the real service words', async () => {
    const s = await start();
    const r = await upload(s, 'document.invalid', 'Test');
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/Invalid file data or file extension not supported/);
  });
});

describe("the official mock's session headers", () => {
  const session = (name: string, extra: Record<string, string>) => ({
    ...AUTH,
    'mock-server-session': name,
    ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`mock-server-session-${k}`, v])),
  });

  it('429-count: the next N requests of the session answer 429, other sessions are untouched', async () => {
    const s = await start();
    const h = session('a', { '429-count': '2' });
    expect((await call(s, 'GET', '/v2/usage', undefined, h)).status).toBe(429);
    expect((await call(s, 'GET', '/v2/usage', undefined, session('b', {}))).status).toBe(200);
    const second = await call(s, 'GET', '/v2/usage', undefined, h);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await call(s, 'GET', '/v2/usage', undefined, h)).status).toBe(200);
  });

  it('no-response-count: the next N requests get no answer', async () => {
    const s = await start();
    const h = session('c', { 'no-response-count': '1' });
    await expect(call(s, 'GET', '/v2/usage', undefined, h)).rejects.toThrow();
    expect((await call(s, 'GET', '/v2/usage', undefined, h)).status).toBe(200);
    expect(s.requests().map((r) => r.status)).toEqual([0, 200]);
  });

  it('doc-failure, doc-queue-time and doc-translate-time shape the session documents', async () => {
    const s = await start();
    const h = session('d', { 'doc-failure': '1', 'doc-queue-time': '300', 'doc-translate-time': '300' });
    const up = async () => {
      const fd = new FormData();
      fd.append('target_lang', 'DE');
      fd.append('source_lang', 'EN');
      fd.append('file', new Blob(['Hello']), 'a.txt');
      const r = await fetch(s.url + '/v2/document', { method: 'POST', headers: h, body: fd });
      return (await r.json()) as { document_id: string; document_key: string };
    };
    const failed = await up();
    expect((await waitFinished(s, failed.document_id, failed.document_key)).status).toBe('error');
    const ok = await up();
    expect((await status(s, ok.document_id, ok.document_key)).body.status).toBe('queued');
    const seen = new Set<string>();
    for (;;) {
      const st = (await status(s, ok.document_id, ok.document_key)).body.status;
      seen.add(st);
      if (st === 'done' || st === 'error') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect([...seen]).toEqual(['queued', 'translating', 'done']);
  });

  it('init-character-limit and init-document-limit give the session its own quota', async () => {
    const s = await start();
    const h = session('e', { 'init-character-limit': '20', 'init-document-limit': '1' });
    expect((await call(s, 'GET', '/v2/usage', undefined, h)).body).toEqual({
      character_count: 0,
      character_limit: 20,
      document_count: 0,
      document_limit: 1,
    });
    expect((await translate(s, { text: ['x'.repeat(21)], target_lang: 'DE' }, h)).status).toBe(456);
    expect((await translate(s, { text: ['x'.repeat(21)], target_lang: 'DE' })).status).toBe(200); // no session
    expect(
      (await call(s, 'GET', '/v2/usage', undefined, session('f', { 'init-team-document-limit': '1' }))).body,
    ).toEqual({ team_document_count: 0, team_document_limit: 1 });
  });
});
