import { describe, expect, it } from 'vitest';
import { AUTH, call, start } from './helpers.js';

type Translated = {
  translations: Array<{ detected_source_language: string; text: string; billed_characters?: number }>;
};
type Err = { message: string; code: string };

async function styleList(s: Awaited<ReturnType<typeof start>>, language = 'de') {
  const r = await call<{ style_id: string }>(s, 'POST', '/v3/style_rules', { name: 'x', language });
  return r.body.style_id;
}

describe('POST /v2/translate', () => {
  it('translates an array of texts in the real service shape, detected language upper-case', async () => {
    const s = await start();
    const r = await call<Translated>(s, 'POST', '/v2/translate', {
      text: ['Hello', 'World'],
      target_lang: 'DE',
      source_lang: 'EN',
    });
    expect(r.status).toBe(200);
    expect(r.body.translations).toHaveLength(2);
    for (const t of r.body.translations) {
      expect(t.detected_source_language).toBe('EN');
      expect(typeof t.text).toBe('string');
    }
    expect(r.body.translations[0]!.text).not.toBe('Hello');
    expect(r.body.translations[0]).not.toHaveProperty('billed_characters');
    const billed = await call<Translated>(s, 'POST', '/v2/translate', {
      text: ['Hello'],
      target_lang: 'de',
      show_billed_characters: true,
    });
    expect(billed.body.translations[0]!.billed_characters).toBe(5);
    expect(billed.body.translations[0]!.detected_source_language).toMatch(/^[A-Z-]+$/);
  });

  it('accepts a form-encoded body (curl -d text=... -d target_lang=...)', async () => {
    const s = await start();
    const r = await fetch(`${s.url}/v2/translate`, {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'text=Hello&text=Bye&target_lang=FR',
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as Translated).translations).toHaveLength(2);
  });

  it('rejects missing or wrong text and target_lang with 400', async () => {
    const s = await start();
    const bad: Array<[unknown, string]> = [
      [{ target_lang: 'DE' }, 'missing_field'],
      [{ text: 'Hello', target_lang: 'DE', extra: 1 }, ''],
      [{ text: [1], target_lang: 'DE' }, 'invalid_type'],
      [{ text: [], target_lang: 'DE' }, 'invalid_value'],
      [{ text: Array(51).fill('x'), target_lang: 'DE' }, 'too_many_texts'],
      [{ text: ['x'] }, 'missing_field'],
      [{ text: ['x'], target_lang: 'XX' }, 'unsupported_language'],
      [{ text: ['x'], target_lang: 5 }, 'invalid_type'],
      [{ text: ['x'], target_lang: 'DE', source_lang: 'EN-US' }, 'unsupported_language'],
      [{ text: ['x'], target_lang: 'DE', model_type: 'fast' }, 'invalid_value'],
      [{ text: ['x'], target_lang: 'DE', formality: 'very' }, 'invalid_value'],
      [{ text: ['x'], target_lang: 'EN-US', formality: 'more' }, 'formality_not_supported'],
    ];
    for (const [body, code] of bad) {
      const r = await call<Err>(s, 'POST', '/v2/translate', body);
      if (code === '') {
        expect(r.status).toBe(200); // a single string is taken as one text, unknown fields are ignored
        continue;
      }
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe(code);
    }
    expect(
      (
        await call(s, 'POST', '/v2/translate', {
          text: ['x'],
          target_lang: 'EN-US',
          formality: 'prefer_more',
        })
      ).status,
    ).toBe(200);
    expect(
      (await call(s, 'POST', '/v2/translate', { text: ['x'], target_lang: 'PT-BR', formality: 'less' }))
        .status,
    ).toBe(200);
  });

  it('uses a style list: it must exist (404), match the target language (400), not with latency_optimized (400)', async () => {
    const s = await start();
    const style = await styleList(s, 'de');
    const ok = await call<Translated>(s, 'POST', '/v2/translate', {
      text: ['Hi'],
      target_lang: 'DE',
      source_lang: 'EN',
      style_id: style,
    });
    expect(ok.status).toBe(200);
    const q = await call(s, 'POST', '/v2/translate', {
      text: ['Hi'],
      target_lang: 'DE',
      style_id: style,
      model_type: 'quality_optimized',
    });
    expect(q.status).toBe(200);

    const missing = await call<Err>(s, 'POST', '/v2/translate', {
      text: ['Hi'],
      target_lang: 'DE',
      style_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('style_not_found');

    const mismatch = await call<Err>(s, 'POST', '/v2/translate', {
      text: ['Hi'],
      target_lang: 'FR',
      style_id: style,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('style_language_mismatch');

    const en = await styleList(s, 'en');
    expect(
      (
        await call(s, 'POST', '/v2/translate', {
          text: ['Hi'],
          target_lang: 'EN-GB',
          source_lang: 'DE',
          style_id: en,
        })
      ).status,
    ).toBe(200);

    const fast = await call<Err>(s, 'POST', '/v2/translate', {
      text: ['Hi'],
      target_lang: 'DE',
      style_id: style,
      model_type: 'latency_optimized',
    });
    expect(fast.status).toBe(400);
    expect(fast.body.message).toMatch(/latency_optimized/);
    expect(
      (
        await call(s, 'POST', '/v2/translate', {
          text: ['Hi'],
          target_lang: 'DE',
          model_type: 'latency_optimized',
        })
      ).status,
    ).toBe(200);
  });

  it('answers 403 for style_id on the free plan, and translates without one', async () => {
    const s = await start({ plan: 'free' });
    const r = await call<Err>(s, 'POST', '/v2/translate', { text: ['Hi'], target_lang: 'DE', style_id: 'x' });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/pro/);
    expect((await call(s, 'POST', '/v2/translate', { text: ['Hi'], target_lang: 'DE' })).status).toBe(200);
  });

  it('needs the key', async () => {
    const s = await start();
    expect((await call(s, 'POST', '/v2/translate', { text: ['Hi'], target_lang: 'DE' }, {})).status).toBe(
      403,
    );
  });
});

describe('placeholder-like tokens', () => {
  it('are left as they are, as a real engine leaves them, while the words around them change', async () => {
    const s = await start();
    const texts = [
      'Hello __VAR_0__, you have __X_12__ new messages',
      'Hello {name}, welcome back',
      'Saved %s files in %1$d folders',
      'Hello $user, you owe $1 today',
      'You have :count new messages from :sender_name',
    ];
    const r = await call<Translated>(s, 'POST', '/v2/translate', { text: texts, target_lang: 'DE' });
    expect(r.status).toBe(200);
    const out = r.body.translations.map((t) => t.text);
    const tokens = [
      ['__VAR_0__', '__X_12__'],
      ['{name}'],
      ['%s', '%1$d'],
      ['$user', '$1'],
      [':count', ':sender_name'],
    ];
    tokens.forEach((list, i) => {
      for (const token of list) expect(out[i], texts[i]).toContain(token);
      expect(out[i]).not.toContain('Hello');
      expect(out[i]).not.toBe(texts[i]);
    });
    // A colon that ends a word is prose, not a parameter.
    const prose = await call<Translated>(s, 'POST', '/v2/translate', {
      text: ['Note: save'],
      target_lang: 'DE',
    });
    expect(prose.body.translations[0]!.text).not.toContain('save');
  });
});
