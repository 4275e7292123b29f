// Every endpoint of both spec files (and the two extensions) through the client, over real HTTP.

import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { NotFoundError, PlanError } from '../../src/api/errors.js';
import { VERSION } from '../../src/version.js';
import type { RunningService } from '../../src/local-service/types.js';
import { makeClient, requestsTo, startStub, startTestService, tempDir, waitForDocument } from './helpers.js';

let svc: RunningService;
let client: ServiceClient;
let tmp: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  svc = await startTestService();
  client = makeClient(svc.url);
  tmp = await tempDir();
});
afterAll(async () => {
  client.close();
  await svc.close();
  await tmp.remove();
});

describe('style rule lists', () => {
  it('creates, reads, patches, replaces rules, lists and deletes a list', async () => {
    const created = await client.createStyleRules({
      name: 'Docs DE',
      language: 'de',
      configured_rules: { punctuation: { quotation_mark: 'use_curly_quotation_marks' } },
      custom_instructions: [{ label: 'Product', prompt: 'Do not translate "locsync"' }],
    });
    expect(created.version).toBe(1);
    expect(created.custom_instructions[0]?.id).toEqual(expect.any(String));

    const got = await client.getStyleRules(created.style_id);
    expect(got).toEqual(created);

    const patched = await client.patchStyleRules(created.style_id, {
      name: 'Docs DE 2',
      configured_rules: { dates_and_times: { time_format: 'use_24_hour_clock' } },
    });
    expect(patched.name).toBe('Docs DE 2');
    expect(patched.version).toBe(2);
    // PATCH merges: the earlier rule stays.
    expect(patched.configured_rules).toEqual({
      punctuation: { quotation_mark: 'use_curly_quotation_marks' },
      dates_and_times: { time_format: 'use_24_hour_clock' },
    });

    // PUT configured_rules replaces them all.
    const replaced = await client.putConfiguredRules(created.style_id, {
      numbers: { thousands_separator: 'do_not_use' },
    });
    expect(replaced.configured_rules).toEqual({ numbers: { thousands_separator: 'do_not_use' } });
    expect(replaced.version).toBe(3);

    const summaries = await client.listStyleRules();
    const summary = summaries.style_rules.find((s) => s.style_id === created.style_id);
    expect(summary).toMatchObject({ name: 'Docs DE 2', version: 3 });
    expect(summary).not.toHaveProperty('configured_rules');
    const detailed = await client.listStyleRules({ detailed: true });
    expect(detailed.style_rules.find((s) => s.style_id === created.style_id)).toHaveProperty(
      'configured_rules',
    );

    await client.deleteStyleRules(created.style_id);
    await expect(client.getStyleRules(created.style_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.deleteStyleRules(created.style_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('adds, reads, replaces and deletes custom instructions', async () => {
    const list = await client.createStyleRules({ name: 'Instr', language: 'fr' });
    const added = await client.addCustomInstruction(list.style_id, { label: 'Tone', prompt: 'Use vous' });
    expect(added.version).toBe(2);
    const instr = added.custom_instructions.find((i) => i.label === 'Tone');
    expect(instr).toBeDefined();
    const iid = instr!.id;

    expect(await client.getCustomInstruction(list.style_id, iid)).toMatchObject({
      id: iid,
      prompt: 'Use vous',
    });
    const replaced = await client.replaceCustomInstruction(list.style_id, iid, {
      label: 'Tone 2',
      prompt: 'Use tu',
      source_language: 'en',
    });
    expect(replaced).toEqual({ id: iid, label: 'Tone 2', prompt: 'Use tu', source_language: 'en' });

    await client.deleteCustomInstruction(list.style_id, iid);
    await expect(client.getCustomInstruction(list.style_id, iid)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.deleteCustomInstruction(list.style_id, iid)).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.getStyleRules(list.style_id)).custom_instructions).toEqual([]);
  });

  it('listAllStyleRules walks every page', async () => {
    const isolated = await startTestService();
    const c = makeClient(isolated.url);
    try {
      const names = Array.from({ length: 27 }, (_, i) => `list-${i}`);
      for (const name of names) await c.createStyleRules({ name, language: 'en' });
      const all = await c.listAllStyleRules();
      expect(all.map((s) => s.name).sort()).toEqual([...names].sort());
      const detailed = await c.listAllStyleRules({ detailed: true });
      expect(detailed).toHaveLength(27);
      expect(detailed.every((s) => Array.isArray(s.custom_instructions))).toBe(true);
      // 27 lists at 25 a page: two pages each walk.
      expect(requestsTo(isolated, 'GET', '/v3/style_rules')).toHaveLength(4);
    } finally {
      c.close();
      await isolated.close();
    }
  });

  it('listAllStyleRules stops when a server ignores the page parameter', async () => {
    let calls = 0;
    const page = Array.from({ length: 25 }, (_, i) => ({ style_id: `id-${i}`, name: `n${i}` }));
    const stub = await startStub((_req, res) => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ style_rules: page }));
    });
    const c = makeClient(stub.url);
    const all = await c.listAllStyleRules();
    c.close();
    await stub.close();
    expect(all).toHaveLength(25);
    expect(calls).toBe(2);
  });

  it('on the free plan, refuses style rules before sending anything', async () => {
    const free = makeClient(svc.url, { plan: 'free' });
    const before = svc.requests().length;
    await expect(free.listStyleRules()).rejects.toBeInstanceOf(PlanError);
    await expect(free.createStyleRules({ name: 'x', language: 'de' })).rejects.toThrow(/professional plan/);
    await expect(
      free.translateText({ text: ['a'], target_lang: 'DE', style_id: 'abc' }),
    ).rejects.toBeInstanceOf(PlanError);
    expect(svc.requests().length).toBe(before);
    free.close();
  });
});

describe('text translation', () => {
  it('translates text with a style list', async () => {
    const list = await client.createStyleRules({ name: 'tt', language: 'de' });
    const res = await client.translateText({
      text: ['Hello', 'World'],
      target_lang: 'DE',
      style_id: list.style_id,
    });
    expect(res.translations).toHaveLength(2);
    expect(res.translations[0]).toEqual({
      detected_source_language: expect.any(String),
      text: expect.any(String),
    });
    expect(res.translations[0]!.text).not.toBe('Hello');
  });
});

describe('documents', () => {
  it('uploads, polls, downloads to the destination, then the download is gone', async () => {
    const src = join(tmp.dir, 'intro.txt');
    await writeFile(src, 'Hello world.\nSecond line.\n');
    const doc = await client.uploadDocument(src, { target_lang: 'DE', source_lang: 'EN' });
    expect(doc).toEqual({ document_id: expect.any(String), document_key: expect.any(String) });

    const upload = svc.requests().find((r) => r.upload?.document_id === doc.document_id);
    expect(upload?.upload).toMatchObject({ filename: 'intro.txt', target_lang: 'DE', bytes: 26 });

    const status = await waitForDocument(client, doc);
    expect(status).toMatchObject({ document_id: doc.document_id, status: 'done' });

    const dest = join(tmp.dir, 'intro.de.txt');
    const { bytes } = await client.downloadDocument(doc.document_id, doc.document_key, dest);
    const text = await readFile(dest, 'utf8');
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(text).not.toBe('Hello world.\nSecond line.\n');
    // Nothing but the source and the result: the temp file was renamed.
    expect((await readdir(tmp.dir)).sort()).toEqual(['intro.de.txt', 'intro.txt']);

    await expect(client.downloadDocument(doc.document_id, doc.document_key, dest)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(client.getDocumentStatus(doc.document_id, doc.document_key)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('sends the upload options, the style_id extension and an explicit filename', async () => {
    const list = await client.createStyleRules({ name: 'up', language: 'fr' });
    const src = join(tmp.dir, 'local-name.txt');
    await writeFile(src, 'It is 3 pm.');
    const doc = await client.uploadDocument(src, {
      target_lang: 'FR',
      source_lang: 'EN',
      formality: 'prefer_less',
      style_id: list.style_id,
      filename: 'remote-name.txt',
    });
    const upload = svc.requests().find((r) => r.upload?.document_id === doc.document_id);
    expect(upload?.upload).toMatchObject({ filename: 'remote-name.txt', target_lang: 'FR' });
    expect(await waitForDocument(client, doc)).toMatchObject({ status: 'done' });
  });

  it('sends Authorization with the configured scheme and the User-Agent', async () => {
    const seen: Array<{ auth?: string; ua?: string }> = [];
    const stub = await startStub((req, res) => {
      seen.push({ auth: req.headers.authorization, ua: req.headers['user-agent'] });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"style_rules":[]}');
    });
    const c = makeClient(stub.url, { apiKey: 'other-key-123456', authScheme: 'Bearer' });
    await c.listStyleRules();
    c.close();
    await stub.close();
    expect(seen).toEqual([{ auth: 'Bearer other-key-123456', ua: `locsync/${VERSION}` }]);
  });
});
