import { describe, expect, it } from 'vitest';
import { AUTH, call, start } from './helpers.js';

type List = {
  style_id: string;
  name: string;
  language: string;
  version: number;
  creation_time: string;
  updated_time: string;
  configured_rules?: Record<string, Record<string, string>>;
  custom_instructions?: Array<{ id: string; label: string; prompt: string; source_language?: string }>;
};
type Err = { message: string; code: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const rules = {
  dates_and_times: { time_format: 'use_24_hour_clock' },
  punctuation: { quotation_mark: 'use_curly_quotation_marks', serial_comma: 'do_not_use' },
};

async function create(
  s: Awaited<ReturnType<typeof start>>,
  body: unknown = { name: 'House style', language: 'de', configured_rules: rules },
) {
  const r = await call<List>(s, 'POST', '/v3/style_rules', body);
  expect(r.status, r.text).toBe(201);
  return r.body;
}

function expect400(r: { status: number; body: unknown }, code?: string, message?: RegExp): void {
  expect(r.status).toBe(400);
  const b = r.body as Err;
  expect(typeof b.message).toBe('string');
  expect(b.message.length).toBeGreaterThan(0);
  if (code) expect(b.code).toBe(code);
  if (message) expect(b.message).toMatch(message);
}

describe('style rules: create (1)', () => {
  it('creates a list with every field, version 1, UUID ids, ISO times', async () => {
    const s = await start();
    const l = await create(s, {
      name: 'House style',
      language: 'de',
      configured_rules: rules,
      custom_instructions: [
        { label: 'Tone', prompt: 'Be brief.', source_language: 'en' },
        { label: 'B', prompt: 'P' },
      ],
    });
    expect(l.style_id).toMatch(UUID);
    expect(l.name).toBe('House style');
    expect(l.language).toBe('de');
    expect(l.version).toBe(1);
    expect(l.creation_time).toMatch(ISO);
    expect(l.updated_time).toBe(l.creation_time);
    expect(l.configured_rules).toEqual(rules);
    expect(l.custom_instructions).toHaveLength(2);
    expect(l.custom_instructions![0]).toMatchObject({
      label: 'Tone',
      prompt: 'Be brief.',
      source_language: 'en',
    });
    expect(l.custom_instructions![0]!.id).toMatch(UUID);
    expect(l.custom_instructions![1]).not.toHaveProperty('source_language');
    expect(new Set(l.custom_instructions!.map((i) => i.id)).size).toBe(2);
  });

  it('defaults configured_rules and custom_instructions to empty', async () => {
    const s = await start();
    const l = await create(s, { name: 'n', language: 'ja' });
    expect(l.configured_rules).toEqual({});
    expect(l.custom_instructions).toEqual([]);
  });

  it('accepts every language of the enum and rejects others', async () => {
    const s = await start();
    for (const language of ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'])
      await create(s, { name: language, language });
    expect400(
      await call(s, 'POST', '/v3/style_rules', { name: 'x', language: 'pt' }),
      'invalid_value',
      /language/,
    );
    expect400(await call(s, 'POST', '/v3/style_rules', { name: 'x', language: 7 }), 'invalid_type');
  });

  it('requires name and language', async () => {
    const s = await start();
    expect400(await call(s, 'POST', '/v3/style_rules', { language: 'de' }), 'missing_field', /name/);
    expect400(await call(s, 'POST', '/v3/style_rules', { name: 'x' }), 'missing_field', /language/);
    expect400(await call(s, 'POST', '/v3/style_rules', { name: '', language: 'de' }), 'invalid_value');
    expect400(await call(s, 'POST', '/v3/style_rules', [1, 2]), 'invalid_body');
    expect400(await call(s, 'POST', '/v3/style_rules', '{not json'));
  });

  it('limits name to 1024 characters', async () => {
    const s = await start();
    await create(s, { name: 'n'.repeat(1024), language: 'de' });
    expect400(
      await call(s, 'POST', '/v3/style_rules', { name: 'n'.repeat(1025), language: 'de' }),
      'too_long',
      /1024/,
    );
  });

  it('rejects wrong types, unknown categories and non-string rule values', async () => {
    const s = await start();
    expect400(await call(s, 'POST', '/v3/style_rules', { name: 1, language: 'de' }), 'invalid_type');
    expect400(
      await call(s, 'POST', '/v3/style_rules', { name: 'x', language: 'de', configured_rules: [] }),
      'invalid_type',
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        name: 'x',
        language: 'de',
        configured_rules: { colours: { a: 'b' } },
      }),
      'unknown_category',
      /colours/,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        name: 'x',
        language: 'de',
        configured_rules: { numbers: { a: 1 } },
      }),
      'invalid_type',
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        name: 'x',
        language: 'de',
        configured_rules: { numbers: 'x' },
      }),
      'invalid_type',
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', { name: 'x', language: 'de', custom_instructions: {} }),
      'invalid_type',
    );
  });

  it('accepts every rule category of the spec', async () => {
    const s = await start();
    const all = Object.fromEntries(
      [
        'dates_and_times',
        'formatting',
        'numbers',
        'punctuation',
        'spelling_and_grammar',
        'style_and_tone',
        'vocabulary',
      ].map((c) => [c, { some_rule: 'some-option' }]),
    );
    const l = await create(s, { name: 'all', language: 'en', configured_rules: all });
    expect(l.configured_rules).toEqual(all);
  });

  it('limits custom instructions: label 100, prompt 300, at most 200, label and prompt required', async () => {
    const s = await start();
    const base = { name: 'x', language: 'de' };
    await create(s, { ...base, custom_instructions: [{ label: 'l'.repeat(100), prompt: 'p'.repeat(300) }] });
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        ...base,
        custom_instructions: [{ label: 'l'.repeat(101), prompt: 'p' }],
      }),
      'too_long',
      /label/,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        ...base,
        custom_instructions: [{ label: 'l', prompt: 'p'.repeat(301) }],
      }),
      'too_long',
      /prompt/,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', { ...base, custom_instructions: [{ prompt: 'p' }] }),
      'missing_field',
      /label/,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', { ...base, custom_instructions: [{ label: 'l' }] }),
      'missing_field',
      /prompt/,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', {
        ...base,
        custom_instructions: [{ label: 'l', prompt: 'p', source_language: 5 }],
      }),
      'invalid_type',
    );
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `l${i}`, prompt: 'p' }));
    expect((await create(s, { ...base, custom_instructions: many(200) })).custom_instructions).toHaveLength(
      200,
    );
    expect400(
      await call(s, 'POST', '/v3/style_rules', { ...base, custom_instructions: many(201) }),
      'too_many_instructions',
      /200/,
    );
  });
});

describe('style rules: list (2)', () => {
  it('pages with page_size (default 10, 1..25) and page (index, default 0), in creation order', async () => {
    const s = await start();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await create(s, { name: `l${i}`, language: 'de' })).style_id);
    const first = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules');
    expect(first.status).toBe(200);
    expect(first.body.style_rules.map((l) => l.style_id)).toEqual(ids.slice(0, 10));
    const p1 = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?page_size=25&page=1');
    expect(p1.body.style_rules.map((l) => l.style_id)).toEqual(ids.slice(25));
    const p2 = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?page_size=5&page=2');
    expect(p2.body.style_rules.map((l) => l.style_id)).toEqual(ids.slice(10, 15));
    const one = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?page_size=1');
    expect(one.body.style_rules).toHaveLength(1);
    const beyond = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?page=99');
    expect(beyond.body.style_rules).toEqual([]);
  });

  it('rejects page_size outside 1..25, a bad page and a bad detailed flag', async () => {
    const s = await start();
    for (const q of [
      'page_size=0',
      'page_size=26',
      'page_size=abc',
      'page_size=1.5',
      'page=-1',
      'page=x',
      'detailed=yes',
    ])
      expect400(await call(s, 'GET', `/v3/style_rules?${q}`), 'invalid_value');
  });

  it('omits configured_rules and custom_instructions unless detailed=true', async () => {
    const s = await start();
    await create(s, {
      name: 'x',
      language: 'de',
      configured_rules: rules,
      custom_instructions: [{ label: 'a', prompt: 'b' }],
    });
    const plain = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules');
    expect(Object.keys(plain.body.style_rules[0]!).sort()).toEqual([
      'creation_time',
      'language',
      'name',
      'style_id',
      'updated_time',
      'version',
    ]);
    const notDetailed = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?detailed=false');
    expect(notDetailed.body.style_rules[0]).not.toHaveProperty('configured_rules');
    const detailed = await call<{ style_rules: List[] }>(s, 'GET', '/v3/style_rules?detailed=true');
    expect(detailed.body.style_rules[0]!.configured_rules).toEqual(rules);
    expect(detailed.body.style_rules[0]!.custom_instructions).toHaveLength(1);
  });
});

describe('style rules: get (3), patch (4), put rules, delete (5)', () => {
  it('gets one full list; 404 for an unknown id', async () => {
    const s = await start();
    const l = await create(s);
    const r = await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(l);
    const missing = await call<Err>(s, 'GET', '/v3/style_rules/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('style_not_found');
  });

  it('PATCH merges only the given rules, keeps everything else, bumps version once', async () => {
    const s = await start();
    const l = await create(s, {
      name: 'x',
      language: 'de',
      configured_rules: rules,
      custom_instructions: [{ label: 'a', prompt: 'b' }],
    });
    await new Promise((r) => setTimeout(r, 5));
    const r = await call<List>(s, 'PATCH', `/v3/style_rules/${l.style_id}`, {
      configured_rules: { punctuation: { serial_comma: 'use' }, numbers: { decimal_separator: 'use_comma' } },
    });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(2);
    expect(r.body.name).toBe('x');
    expect(r.body.updated_time > l.updated_time).toBe(true);
    expect(r.body.creation_time).toBe(l.creation_time);
    expect(r.body.configured_rules).toEqual({
      dates_and_times: { time_format: 'use_24_hour_clock' },
      punctuation: { quotation_mark: 'use_curly_quotation_marks', serial_comma: 'use' },
      numbers: { decimal_separator: 'use_comma' },
    });
    expect(r.body.custom_instructions).toEqual(l.custom_instructions);
    const renamed = await call<List>(s, 'PATCH', `/v3/style_rules/${l.style_id}`, { name: 'y' });
    expect(renamed.body).toMatchObject({ name: 'y', version: 3 });
    expect(renamed.body.configured_rules).toEqual(r.body.configured_rules);
    expect((await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`)).body.version).toBe(3);
  });

  it('PATCH validates like create and answers 404 for an unknown id', async () => {
    const s = await start();
    const l = await create(s);
    const p = `/v3/style_rules/${l.style_id}`;
    expect400(await call(s, 'PATCH', p, { name: 'n'.repeat(1025) }), 'too_long');
    expect400(await call(s, 'PATCH', p, { name: 3 }), 'invalid_type');
    expect400(await call(s, 'PATCH', p, { configured_rules: { nope: {} } }), 'unknown_category');
    expect400(await call(s, 'PATCH', p, { configured_rules: { numbers: { x: false } } }), 'invalid_type');
    expect400(await call(s, 'PATCH', p, {}), 'missing_field');
    expect((await call<List>(s, 'GET', p)).body.version).toBe(1);
    expect((await call(s, 'PATCH', '/v3/style_rules/nope', { name: 'x' })).status).toBe(404);
  });

  it('PUT configured_rules replaces all rules (bare object or wrapped), version +1', async () => {
    const s = await start();
    const l = await create(s);
    const p = `/v3/style_rules/${l.style_id}/configured_rules`;
    const r = await call<List>(s, 'PUT', p, { numbers: { thousands_separator: 'do_not_use' } });
    expect(r.status).toBe(200);
    expect(r.body.configured_rules).toEqual({ numbers: { thousands_separator: 'do_not_use' } });
    expect(r.body.version).toBe(2);
    const w = await call<List>(s, 'PUT', p, { configured_rules: { vocabulary: { loanwords: 'x' } } });
    expect(w.body.configured_rules).toEqual({ vocabulary: { loanwords: 'x' } });
    expect(w.body.version).toBe(3);
    expect400(await call(s, 'PUT', p, { bogus: { a: 'b' } }), 'unknown_category');
    expect((await call(s, 'PUT', '/v3/style_rules/nope/configured_rules', {})).status).toBe(404);
  });

  it('DELETE answers 204 with an empty body, then 404', async () => {
    const s = await start();
    const l = await create(s);
    const d = await call(s, 'DELETE', `/v3/style_rules/${l.style_id}`);
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect((await call(s, 'GET', `/v3/style_rules/${l.style_id}`)).status).toBe(404);
    expect((await call(s, 'DELETE', `/v3/style_rules/${l.style_id}`)).status).toBe(404);
    // a client that sends Content-Type: application/json with no body is fine
    const l2 = await create(s);
    const r = await fetch(`${s.url}/v3/style_rules/${l2.style_id}`, {
      method: 'DELETE',
      headers: { ...AUTH, 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(204);
  });
});

describe('custom instructions (6-9)', () => {
  it('adds (201, full list, version +1), gets, replaces (version +1), deletes (204, version +1)', async () => {
    const s = await start();
    const l = await create(s);
    const base = `/v3/style_rules/${l.style_id}/custom_instructions`;
    const added = await call<List>(s, 'POST', base, {
      label: 'Tone',
      prompt: 'Use the imperative.',
      source_language: 'en',
    });
    expect(added.status).toBe(201);
    expect(added.body.version).toBe(2);
    expect(added.body.configured_rules).toEqual(rules);
    const ins = added.body.custom_instructions![0]!;
    expect(ins).toEqual({
      id: expect.stringMatching(UUID),
      label: 'Tone',
      prompt: 'Use the imperative.',
      source_language: 'en',
    });

    const got = await call(s, 'GET', `${base}/${ins.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(ins);

    const put = await call(s, 'PUT', `${base}/${ins.id}`, {
      label: 'Tone 2',
      prompt: 'Short sentences.',
      source_language: 'de',
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: ins.id,
      label: 'Tone 2',
      prompt: 'Short sentences.',
      source_language: 'de',
    });
    expect((await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`)).body.version).toBe(3);

    const dropped = await call(s, 'PUT', `${base}/${ins.id}`, { label: 'Tone 3', prompt: 'p' });
    expect(dropped.body).toEqual({ id: ins.id, label: 'Tone 3', prompt: 'p' });

    const del = await call(s, 'DELETE', `${base}/${ins.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const after = await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`);
    expect(after.body.version).toBe(5);
    expect(after.body.custom_instructions).toEqual([]);
    expect((await call(s, 'GET', `${base}/${ins.id}`)).status).toBe(404);
    expect((await call(s, 'DELETE', `${base}/${ins.id}`)).status).toBe(404);
    expect((await call(s, 'PUT', `${base}/${ins.id}`, { label: 'a', prompt: 'b' })).status).toBe(404);
  });

  it('validates instructions and answers 404 for an unknown list', async () => {
    const s = await start();
    const l = await create(s);
    const base = `/v3/style_rules/${l.style_id}/custom_instructions`;
    expect400(await call(s, 'POST', base, { label: 'l'.repeat(101), prompt: 'p' }), 'too_long');
    expect400(await call(s, 'POST', base, { label: 'l', prompt: 'p'.repeat(301) }), 'too_long');
    expect400(await call(s, 'POST', base, { prompt: 'p' }), 'missing_field');
    expect400(await call(s, 'POST', base, { label: 'l', prompt: 7 }), 'invalid_type');
    const ins = (await call<List>(s, 'POST', base, { label: 'l', prompt: 'p' })).body
      .custom_instructions![0]!;
    expect400(await call(s, 'PUT', `${base}/${ins.id}`, { label: 'l' }), 'missing_field');
    expect400(await call(s, 'PUT', `${base}/${ins.id}`, { label: 'l', prompt: 'p'.repeat(301) }), 'too_long');
    expect((await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`)).body.version).toBe(2);
    expect(
      (await call(s, 'POST', '/v3/style_rules/nope/custom_instructions', { label: 'l', prompt: 'p' })).status,
    ).toBe(404);
    expect((await call(s, 'GET', '/v3/style_rules/nope/custom_instructions/x')).status).toBe(404);
    expect((await call(s, 'GET', `${base}/nope`)).status).toBe(404);
  });

  it('refuses the 201st instruction', async () => {
    const s = await start();
    const l = await create(s, {
      name: 'x',
      language: 'de',
      custom_instructions: Array.from({ length: 199 }, (_, i) => ({ label: `l${i}`, prompt: 'p' })),
    });
    const base = `/v3/style_rules/${l.style_id}/custom_instructions`;
    expect((await call(s, 'POST', base, { label: 'x', prompt: 'p' })).status).toBe(201);
    expect400(await call(s, 'POST', base, { label: 'y', prompt: 'p' }), 'too_many_instructions');
    const after = await call<List>(s, 'GET', `/v3/style_rules/${l.style_id}`);
    expect(after.body.custom_instructions).toHaveLength(200);
    expect(after.body.version).toBe(2);
  });
});

describe('style rules: authentication and plan', () => {
  it('answers 403 {message, code} without a key, with a wrong key or another scheme', async () => {
    const s = await start();
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Service-Auth-Key wrong' },
      { Authorization: `Bearer x` },
      { Authorization: 'Service-Auth-Key ' },
    ]) {
      const r = await call<Err>(s, 'GET', '/v3/style_rules', undefined, headers);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('forbidden');
      expect(r.body.message).toMatch(/Service-Auth-Key/);
    }
  });

  it('accepts any non-empty key when no key is configured', async () => {
    const s = await start({ authKey: undefined });
    expect(
      (await call(s, 'GET', '/v3/style_rules', undefined, { Authorization: 'Service-Auth-Key anything' }))
        .status,
    ).toBe(200);
    expect((await call(s, 'GET', '/v3/style_rules', undefined, {})).status).toBe(403);
  });

  it('answers 403 on the free plan, saying style rules need the pro plan', async () => {
    const s = await start({ plan: 'free' });
    for (const [method, path] of [
      ['GET', '/v3/style_rules'],
      ['POST', '/v3/style_rules'],
      ['GET', '/v3/style_rules/x'],
      ['DELETE', '/v3/style_rules/x/custom_instructions/y'],
    ] as const) {
      const r = await call<Err>(
        s,
        method,
        path,
        method === 'POST' ? { name: 'x', language: 'de' } : undefined,
      );
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(/pro/);
      expect(r.body.code).toBe('plan_restricted');
    }
  });
});
