import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceClient } from '../../src/api/client.js';
import { NotFoundError, UploadMaybeAcceptedError } from '../../src/api/errors.js';
import { GlossaryApi } from '../../src/api/glossaries.js';
import type { RunningService } from '../../src/local-service/types.js';
import { makeClient, requestsTo, startTestService } from '../api/helpers.js';

// The glossary endpoints of the client over real HTTP, and their retry rules: reads, PUT and DELETE
// are retried like every idempotent call; creating is retried only where the service surely did not
// take the request (a repeat after a lost answer could make the glossary twice).

let svc: RunningService;
let client: ServiceClient;
let api: GlossaryApi;

beforeAll(async () => {
  svc = await startTestService();
  client = makeClient(svc.url);
  api = new GlossaryApi(client);
});
afterEach(() => {
  svc.clearFaults();
  svc.clearRequests();
});
afterAll(async () => {
  client.close();
  await svc.close();
});

describe('glossary endpoints', () => {
  it('v3: create, get, entries, replace a dictionary, delete a pair, rename, delete', async () => {
    const g = await api.create('Terms', [
      { source_lang: 'en', target_lang: 'de', entries: 'folder\tOrdner\nSave\tSpeichern' },
      { source_lang: 'en', target_lang: 'fr', entries: 'folder\tdossier' },
    ]);
    expect(g.dictionaries.map((d) => d.entry_count).sort()).toEqual([1, 2]);
    expect(await api.entries(g.glossary_id, 'en', 'de')).toBe('folder\tOrdner\nSave\tSpeichern');
    await api.putDictionary(g.glossary_id, {
      source_lang: 'en',
      target_lang: 'de',
      entries: 'folder\tMappe',
    });
    expect(await api.entries(g.glossary_id, 'en', 'de')).toBe('folder\tMappe');
    await api.deleteDictionary(g.glossary_id, 'en', 'fr');
    expect((await api.get(g.glossary_id)).dictionaries.map((d) => d.target_lang.toLowerCase())).toEqual([
      'de',
    ]);
    expect((await api.rename(g.glossary_id, 'Docs terms')).name).toBe('Docs terms');
    await api.delete(g.glossary_id);
    await expect(api.get(g.glossary_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('v2: create, list, entries as TSV text, delete; language pairs', async () => {
    const g = await api.createV2({
      name: 'Old',
      source_lang: 'en',
      target_lang: 'de',
      entries: 'folder\tOrdner',
    });
    expect((await api.listV2()).map((x) => x.glossary_id)).toContain(g.glossary_id);
    expect((await api.entriesV2(g.glossary_id)).trim()).toBe('folder\tOrdner');
    await api.deleteV2(g.glossary_id);
    await expect(api.getV2(g.glossary_id)).rejects.toBeInstanceOf(NotFoundError);
    const pairs = await api.languagePairs();
    expect(pairs).toContainEqual({ source_lang: 'en', target_lang: 'de' });
  });

  it('a create answered 429 or 503 is retried (the service did not take it)', async () => {
    svc.addFaults({
      match: { method: 'POST', path: '/v3/glossaries' },
      status: 429,
      count: 1,
      retryAfter: 0,
    });
    svc.addFaults({
      match: { method: 'POST', path: '/v3/glossaries' },
      status: 503,
      count: 1,
      retryAfter: 0,
    });
    const g = await api.create('Retried', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    expect(requestsTo(svc, 'POST', '/v3/glossaries').map((r) => r.status)).toEqual([429, 503, 201]);
    await api.delete(g.glossary_id);
  });

  it('a create whose answer is lost after the body was sent is not repeated', async () => {
    svc.addFaults({ match: { method: 'POST', path: '/v3/glossaries' }, status: 500, count: 1 });
    const err = await api
      .create('Maybe made', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadMaybeAcceptedError);
    expect(String(err)).toContain('the service may have made it; not retried');
    expect(requestsTo(svc, 'POST', '/v3/glossaries')).toHaveLength(1);

    svc.clearRequests();
    svc.addFaults({ match: { method: 'POST', path: '/v3/glossaries' }, drop: 1, dropAfterBody: true });
    await expect(
      api.create('Maybe made', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]),
    ).rejects.toBeInstanceOf(UploadMaybeAcceptedError);
    expect(requestsTo(svc, 'POST', '/v3/glossaries')).toHaveLength(1);
  });

  it('reads and PUT are retried like every idempotent call', async () => {
    const g = await api.create('Idempotent', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    const path = `/v3/glossaries/${g.glossary_id}/dictionaries`;
    svc.addFaults({ match: { method: 'PUT', path }, status: 502, count: 2, retryAfter: 0 });
    await api.putDictionary(g.glossary_id, { source_lang: 'en', target_lang: 'de', entries: 'a\tc' });
    expect(requestsTo(svc, 'PUT', path).map((r) => r.status)).toEqual([502, 502, 200]);
    await api.delete(g.glossary_id);
  });
});
