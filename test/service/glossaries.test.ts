import { describe, expect, it } from 'vitest';
import { AUTH, call, download, start, translateDocument } from './helpers.js';

type Info3 = {
  glossary_id: string;
  name: string;
  creation_time: string;
  dictionaries: Array<{ source_lang: string; target_lang: string; entry_count: number }>;
};
type Info2 = {
  glossary_id: string;
  name: string;
  ready: boolean;
  source_lang: string;
  target_lang: string;
  creation_time: string;
  entry_count: number;
};
type Err = { message: string; code: string };
type Translated = { translations: Array<{ text: string }> };

/** A form-encoded POST/PATCH/PUT, the way the official clients send glossaries. */
async function form(s: { url: string }, method: string, path: string, fields: Record<string, string>) {
  const r = await fetch(s.url + path, {
    method,
    headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const enDe = (entries: string, format = 'tsv') => ({
  source_lang: 'en',
  target_lang: 'de',
  entries,
  entries_format: format,
});

describe('/v3/glossaries', () => {
  it('creates, lists, reads, renames, merges, replaces and deletes (JSON bodies)', async () => {
    const s = await start();
    const created = await call<Info3>(s, 'POST', '/v3/glossaries', {
      name: 'Product terms',
      dictionaries: [enDe('Hello\tHallo'), { ...enDe('Hallo\tHello'), source_lang: 'DE', target_lang: 'EN' }],
    });
    expect(created.status).toBe(201);
    const g = created.body;
    expect(g.glossary_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(g.dictionaries).toEqual([
      { source_lang: 'en', target_lang: 'de', entry_count: 1 },
      { source_lang: 'de', target_lang: 'en', entry_count: 1 },
    ]);
    const list = await call<{ glossaries: Info3[] }>(s, 'GET', '/v3/glossaries');
    expect(list.body.glossaries).toEqual([g]);
    expect((await call<Info3>(s, 'GET', `/v3/glossaries/${g.glossary_id}`)).body).toEqual(g);

    const patched = await call<Info3>(s, 'PATCH', `/v3/glossaries/${g.glossary_id}`, {
      name: 'Renamed',
      dictionaries: [enDe('Hello\tGuten Tag\nApple\tApfel')],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Renamed');
    expect(patched.body.dictionaries[0]).toEqual({ source_lang: 'en', target_lang: 'de', entry_count: 2 });
    const entries = await call<{ dictionaries: Array<Record<string, string>> }>(
      s,
      'GET',
      `/v3/glossaries/${g.glossary_id}/entries?source_lang=en&target_lang=de`,
    );
    expect(entries.body.dictionaries).toEqual([
      {
        source_lang: 'en',
        target_lang: 'de',
        entries: 'Hello\tGuten Tag\nApple\tApfel',
        entries_format: 'tsv',
      },
    ]);

    const replaced = await call(
      s,
      'PUT',
      `/v3/glossaries/${g.glossary_id}/dictionaries`,
      enDe('Banana\tBanane'),
    );
    expect(replaced.body).toEqual({ source_lang: 'en', target_lang: 'de', entry_count: 1 });

    const delDict = await call(
      s,
      'DELETE',
      `/v3/glossaries/${g.glossary_id}/dictionaries?source_lang=en&target_lang=de`,
    );
    expect(delDict.status).toBe(204);
    const after = await call<Info3>(s, 'GET', `/v3/glossaries/${g.glossary_id}`);
    expect(after.body.dictionaries).toEqual([{ source_lang: 'de', target_lang: 'en', entry_count: 1 }]);
    expect(
      (await call(s, 'GET', `/v3/glossaries/${g.glossary_id}/entries?source_lang=en&target_lang=de`)).status,
    ).toBe(404);

    expect((await call(s, 'DELETE', `/v3/glossaries/${g.glossary_id}`)).status).toBe(204);
    expect((await call(s, 'GET', `/v3/glossaries/${g.glossary_id}`)).status).toBe(404);
  });

  it('takes the official clients form bodies (dictionaries[0].entries ...) and CSV with quotes', async () => {
    const s = await start();
    const r = await form(s, 'POST', '/v3/glossaries', {
      name: 'csv',
      'dictionaries[0].source_lang': 'en',
      'dictionaries[0].target_lang': 'de',
      'dictionaries[0].entries': 'sourceEntry1,targetEntry1,en,de\n"source""Entry","target,Entry",en,de',
      'dictionaries[0].entries_format': 'csv',
    });
    expect(r.status).toBe(201);
    const id = (r.body as Info3).glossary_id;
    const entries = await call<{ dictionaries: Array<{ entries: string }> }>(
      s,
      'GET',
      `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`,
    );
    expect(entries.body.dictionaries[0]!.entries).toBe(
      'sourceEntry1\ttargetEntry1\nsource"Entry\ttarget,Entry',
    );
  });

  it('allows a glossary without dictionaries but never a dictionary without entries', async () => {
    const s = await start();
    expect((await call(s, 'POST', '/v3/glossaries', { name: 'empty', dictionaries: [] })).status).toBe(201);
    const r = await call<Err>(s, 'POST', '/v3/glossaries', { name: 'x', dictionaries: [enDe('')] });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_entries');
  });

  it('refuses malformed ids with 400 and unknown ones with 404', async () => {
    const s = await start();
    expect((await call(s, 'GET', '/v3/glossaries/invalid_glossary_id')).status).toBe(400);
    const r = await call<Err>(s, 'GET', '/v3/glossaries/96ab91fd-e715-41a1-adeb-5d701f84a483');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('glossary_not_found');
  });
});

describe('glossary validation (the real service rules)', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an empty name', { name: '', ...enDe('a\tb') }, 'missing_field'],
    ['an unsupported language', { name: 'n', ...enDe('a\tb'), target_lang: 'xx' }, 'unsupported_language'],
    ['the same language twice', { name: 'n', ...enDe('a\tb'), target_lang: 'en' }, 'invalid_language_pair'],
    ['a duplicate source term', { name: 'n', ...enDe('a\tb\na\tc') }, 'invalid_entries'],
    ['an empty source term', { name: 'n', ...enDe('\tb') }, 'invalid_entries'],
    ['a leading space', { name: 'n', ...enDe(' a\tb') }, 'invalid_entries'],
    ['a trailing space in a target', { name: 'n', ...enDe('a\tb ') }, 'invalid_entries'],
    ['a control character', { name: 'n', ...enDe('a\u0007x\tb') }, 'invalid_entries'],
    ['a term over 1024 bytes', { name: 'n', ...enDe(`${'ä'.repeat(513)}\tb`) }, 'invalid_entries'],
    ['three TSV columns', { name: 'n', ...enDe('a\tb\tc') }, 'invalid_entries'],
    ['CSV languages of another pair', { name: 'n', ...enDe('a,b,en,fr', 'csv') }, 'invalid_entries'],
    ['an unknown entries_format', { name: 'n', ...enDe('a\tb', 'xml') }, 'invalid_value'],
    [
      'entries over 10 MB',
      { name: 'n', ...enDe('a\tb\n'.repeat(1).padEnd(10 * 1024 * 1024 + 10, ' ')) },
      'glossary_too_large',
    ],
  ];
  for (const [what, body, code] of cases) {
    it(`refuses ${what} (v2, and v3 naming the dictionary) and creates nothing`, async () => {
      const s = await start();
      const v2 = await call<Err>(s, 'POST', '/v2/glossaries', body);
      expect(v2.status).toBe(400);
      expect(v2.body.code).toBe(code);
      const { name, ...dict } = body;
      const v3 = await call<Err>(s, 'POST', '/v3/glossaries', { name, dictionaries: [dict] });
      expect(v3.status).toBe(400);
      expect(v3.body.code).toBe(code);
      if (code !== 'missing_field')
        expect(v3.body.message).toMatch(/line \d+|dictionaries\[0\]|entries|language|pair/);
      expect((await call<{ glossaries: unknown[] }>(s, 'GET', '/v3/glossaries')).body.glossaries).toEqual([]);
    });
  }
});

describe('/v2/glossaries and /v2/glossary-language-pairs', () => {
  it('creates a single-pair glossary (form body), lists it, returns TSV entries, deletes it', async () => {
    const s = await start();
    const r = await form(s, 'POST', '/v2/glossaries', {
      name: 'v2',
      source_lang: 'en',
      target_lang: 'de',
      entries: 'Apple\tApfel\nBanana\tBanane',
      entries_format: 'tsv',
    });
    expect(r.status).toBe(201);
    const g = r.body as Info2;
    expect(g).toMatchObject({
      name: 'v2',
      ready: true,
      source_lang: 'en',
      target_lang: 'de',
      entry_count: 2,
    });
    expect((await call<{ glossaries: Info2[] }>(s, 'GET', '/v2/glossaries')).body.glossaries).toEqual([g]);
    expect((await call<Info2>(s, 'GET', `/v2/glossaries/${g.glossary_id}`)).body).toEqual(g);
    const entries = await call(s, 'GET', `/v2/glossaries/${g.glossary_id}/entries`);
    expect(entries.headers.get('content-type')).toMatch(/^text\/tab-separated-values/);
    expect(entries.text).toBe('Apple\tApfel\nBanana\tBanane');
    // the same glossary through /v3
    const v3 = await call<Info3>(s, 'GET', `/v3/glossaries/${g.glossary_id}`);
    expect(v3.body.dictionaries).toEqual([{ source_lang: 'en', target_lang: 'de', entry_count: 2 }]);
    expect((await call(s, 'DELETE', `/v2/glossaries/${g.glossary_id}`)).status).toBe(204);
    expect((await call(s, 'GET', `/v2/glossaries/${g.glossary_id}`)).status).toBe(404);
  });

  it('does not show a multilingual glossary through /v2', async () => {
    const s = await start();
    const g = await call<Info3>(s, 'POST', '/v3/glossaries', {
      name: 'two',
      dictionaries: [enDe('a\tb'), { ...enDe('b\ta'), source_lang: 'de', target_lang: 'en' }],
    });
    expect((await call<{ glossaries: unknown[] }>(s, 'GET', '/v2/glossaries')).body.glossaries).toEqual([]);
    expect((await call<Err>(s, 'GET', `/v2/glossaries/${g.body.glossary_id}`)).body.code).toBe(
      'multilingual_glossary',
    );
  });

  it('lists every ordered pair of glossary languages', async () => {
    const s = await start();
    const r = await call<{ supported_languages: Array<{ source_lang: string; target_lang: string }> }>(
      s,
      'GET',
      '/v2/glossary-language-pairs',
    );
    expect(r.body.supported_languages).toContainEqual({ source_lang: 'en', target_lang: 'de' });
    expect(r.body.supported_languages).toContainEqual({ source_lang: 'ja', target_lang: 'fr' });
    expect(r.body.supported_languages.some((p) => p.source_lang === p.target_lang)).toBe(false);
  });
});

describe('glossary_id on translations', () => {
  async function glossary(s: Awaited<ReturnType<typeof start>>, entries: string) {
    return (await call<Info3>(s, 'POST', '/v3/glossaries', { name: 'g', dictionaries: [enDe(entries)] })).body
      .glossary_id;
  }

  it('renders every source term as its target term, on word boundaries, before pseudo-localisation', async () => {
    const s = await start();
    const id = await glossary(s, 'Apple\tApfel\nartist\tMaler\nprize\tGewinn\nart\tKunst');
    const r = await call<Translated>(s, 'POST', '/v2/translate', {
      text: ['Apple', 'The artist was awarded a prize.', 'Artist and art.'],
      source_lang: 'EN',
      target_lang: 'DE',
      glossary_id: id,
    });
    expect(r.status).toBe(200);
    const [apple, sentence, cap] = r.body.translations.map((t) => t.text);
    expect(apple).toBe('Apfel');
    expect(sentence).toContain('Maler');
    expect(sentence).toContain('Gewinn');
    expect(sentence).not.toContain('Kunst'); // "art" inside "artist" is not a match
    expect(cap).toContain('Maler'); // sentence-initial capital matches the lower-case term
    expect(cap).toContain('Kunst');
  });

  it('needs source_lang and a dictionary for the pair; an unknown glossary is 404', async () => {
    const s = await start();
    const id = await glossary(s, 'a\tb');
    const noSource = await call<Err>(s, 'POST', '/v2/translate', {
      text: ['a'],
      target_lang: 'DE',
      glossary_id: id,
    });
    expect(noSource.body.code).toBe('glossary_requires_source_lang');
    const pair = await call<Err>(s, 'POST', '/v2/translate', {
      text: ['a'],
      source_lang: 'DE',
      target_lang: 'EN-US',
      glossary_id: id,
    });
    expect(pair.status).toBe(400);
    expect(pair.body.message).toContain('No dictionary found for language pair');
    const unknown = await call(s, 'POST', '/v2/translate', {
      text: ['a'],
      source_lang: 'EN',
      target_lang: 'DE',
      glossary_id: '96ab91fd-e715-41a1-adeb-5d701f84a483',
    });
    expect(unknown.status).toBe(404);
  });

  it('applies the glossary to an uploaded document', async () => {
    const s = await start();
    const id = await glossary(s, 'artist\tMaler\nprize\tGewinn');
    const doc = await translateDocument(s, 'terms.txt', 'artist\nprize', {
      target_lang: 'DE',
      source_lang: 'EN',
      glossary_id: id,
    });
    expect(doc.final.status).toBe('done');
    expect((await download(s, doc.document_id, doc.document_key)).text).toBe('Maler\nGewinn');
  });
});
