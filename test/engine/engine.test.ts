import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/local-service/engine/index.js';
import type { EngineStyle, TranslateOptions } from '../../src/local-service/engine/types.js';
import type { ConfiguredRules } from '../../src/api/types.js';
import { Phrasebook } from '../../src/local-service/engine/phrasebook.js';
import { createTranslator } from '../../src/local-service/engine/translator.js';
import { ConfigError } from '../../src/util/errors.js';

let dir: string;
let phrasebookPath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'locsync-engine-'));
  phrasebookPath = join(dir, 'phrasebook.yaml');
  await writeFile(
    phrasebookPath,
    [
      '"Hello world":',
      '  de: Hallo Welt',
      '  fr: Bonjour le monde',
      '"Meet at 3:30 PM.":',
      '  de: Treffen um 3:30 PM.',
      '',
    ].join('\n'),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const style = (rules: ConfiguredRules, prompts: string[] = []): EngineStyle => ({
  configured_rules: rules,
  custom_instructions: prompts.map((prompt, i) => ({ id: String(i), label: `l${i}`, prompt })),
});

function tr(text: string, opts: TranslateOptions): string {
  return createEngine({ phrasebookPath }).translateTexts([text], opts).texts[0] as string;
}

describe('phrasebook and pseudo-localisation', () => {
  it('uses the phrasebook for exact segments, keeping surrounding whitespace', () => {
    expect(tr('Hello world', { targetLang: 'de' })).toBe('Hallo Welt');
    expect(tr('  Hello   world \n', { targetLang: 'fr' })).toBe('  Bonjour le monde \n');
    expect(tr('Hello world', { targetLang: 'FR' })).toBe('Bonjour le monde');
  });

  it('pseudo-localises other text: visibly changed, deterministic, per language, about 30% longer', () => {
    const src = 'The quarterly numbers will be published on the intranet next week.';
    const de = tr(src, { targetLang: 'de' });
    expect(de).not.toBe(src);
    expect(de.startsWith('[de] ')).toBe(true);
    expect(tr(src, { targetLang: 'de' })).toBe(de);
    const fr = tr(src, { targetLang: 'fr' });
    expect(fr).not.toBe(de);
    expect(de.length).toBeGreaterThanOrEqual(src.length * 1.25);
    expect(de.length).toBeLessThanOrEqual(src.length * 1.4);
  });

  it('keeps placeholders, numbers, URLs, e-mail addresses, markup and surrounding whitespace', () => {
    const src =
      '  Hi {0}, {{name}} and ${user}: %s has 42 files, %1$d new. See https://example.com/a?b=c or mail ann.lee@example.org. <b class="x">Bold</b> &amp; more\n';
    const out = tr(src, { targetLang: 'de' });
    for (const kept of [
      '{0}',
      '{{name}}',
      '${user}',
      '%s',
      '%1$d',
      '42',
      'https://example.com/a?b=c',
      'ann.lee@example.org',
      '<b class="x">',
      '</b>',
      '&amp;',
    ]) {
      expect(out).toContain(kept);
    }
    expect(out.startsWith('  [de] ')).toBe(true);
    expect(out.endsWith('\n')).toBe(true);
    expect(out).not.toContain('Bold');
  });

  it('leaves text without letters alone and bills source characters', () => {
    const engine = createEngine();
    const r = engine.translateTexts(['42', 'Hello', ''], { targetLang: 'de' });
    expect(r.texts[0]).toBe('42');
    expect(r.texts[2]).toBe('');
    expect(r.billedCharacters).toBe(7);
    expect(r.detectedSourceLang).toBe('en');
    expect(engine.translateTexts(['x'], { targetLang: 'en', sourceLang: 'fr' }).detectedSourceLang).toBe(
      'fr',
    );
  });

  it('detects the language of texts without a source language (eld, then the script)', async () => {
    const engine = createEngine();
    const cases: Array<[string, string]> = [
      ['Grüße aus München, wie geht es dir heute?', 'de'],
      ['The artist was awarded a prize.', 'en'],
      ['Le chat dort sur le canapé depuis ce matin.', 'fr'],
      ['El perro come en la cocina todos los días.', 'es'],
      ['<p>Ceci est une <b>phrase</b> en français.</p>', 'fr'],
      ['これは日本語の文です。', 'ja'],
      ['Это предложение на русском языке.', 'ru'],
      ['42 — 17', 'en'],
    ];
    for (const [text, lang] of cases) expect(await engine.detectLanguage!(text), text).toBe(lang);
  });

  it('knows the language of a phrasebook segment from the phrasebook', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'locsync-detect-'));
    const path = join(dir, 'book.tsv');
    await writeFile(
      path,
      'source\ten\tde\tfr\nproton beam\tproton beam\tProtonenstrahl\tfaisceau de protons\n',
    );
    const engine = createEngine({ phrasebookPath: path });
    expect(await engine.detectLanguage!('Protonenstrahl')).toBe('de');
    expect(await engine.detectLanguage!('faisceau de protons')).toBe('fr');
    expect(await engine.detectLanguage!('proton beam')).toBe('en');
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps run boundaries: a segment in pieces comes back in as many pieces', () => {
    const t = createTranslator(
      Phrasebook.fromYaml('"Hello world":\n  de: Hallo Welt\n'),
      { targetLang: 'de' },
      'en',
    );
    const pseudo = t.translate(['Save ', 'all', ' files']);
    expect(pseudo).toHaveLength(3);
    expect(pseudo[0]?.startsWith('[de] ')).toBe(true);
    expect(pseudo[2]).toMatch(/~+$/);
    expect(t.translate(['Hello ', 'world'])).toEqual(['Hallo ', 'Welt']);
    expect(t.translate(['Run ', 'npm test', ' now'], [false, true, false])[1]).toBe('npm test');
  });

  it('a phrasebook translation keeps the formatted runs it spans: each keeps a share of the text', () => {
    const t = createTranslator(
      Phrasebook.fromYaml('"This is very important.":\n  de: Das ist sehr wichtig.\n'),
      { targetLang: 'de' },
      'en',
    );
    // "This is " + italic "very" + " important.": the italic run is not emptied.
    expect(t.translate(['This is ', 'very', ' important.'])).toEqual(['Das ist ', 'sehr', ' wichtig.']);
    // Whitespace around the segment stays where it was.
    expect(t.translate(['  This is ', 'very', ' important. '])).toEqual(['  Das ist ', 'sehr', ' wichtig. ']);
  });

  it('a glossary term spanning formatted runs is still replaced, each run keeping part of it', () => {
    const t = createTranslator(
      undefined,
      {
        targetLang: 'de',
        glossary: [
          ['Acme Cloud', 'Acme Wolke'],
          ['sign in', 'anmelden'],
        ],
      },
      'en',
    );
    // Bold "Acme" then " Cloud is fast": the term is found across the two runs.
    const out = t.translate(['Acme', ' Cloud is fast']);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^\[de\] Acme$/);
    expect(out[1]?.startsWith(' Wolke ')).toBe(true);
    // A term inside one run is unchanged by this; two pieces stay two.
    const inside = t.translate(['Please ', 'sign in', ' first']);
    expect(inside[1]).toBe('anmelden');
    // Not across a word: "sign" + "ing in" holds no term.
    expect(t.translate(['sign', 'ing in'])).not.toContain('anmelden');
  });

  it('keeps private-use and NUL characters of the input', () => {
    const src = 'Icon \uE001 here\u0000 and \uF8FF end';
    const out = tr(src, { targetLang: 'de' });
    expect(out).toContain('\uE001');
    expect(out).toContain('\u0000');
    expect(out).toContain('\uF8FF');
    expect(out.startsWith('[de] ')).toBe(true);
  });

  it('reads TSV phrasebooks and reports bad phrasebooks with file and line', async () => {
    const tsv = join(dir, 'book.tsv');
    await writeFile(tsv, 'source\tde\tfr\nGood morning\tGuten Morgen\tBonjour\nTab\\there\tTab\\tda\t\n');
    const engine = createEngine({ phrasebookPath: tsv });
    expect(engine.translateTexts(['Good morning'], { targetLang: 'fr' }).texts[0]).toBe('Bonjour');
    expect(engine.translateTexts(['Tab\there'], { targetLang: 'de' }).texts[0]).toBe('Tab\tda');
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, '"A":\n  de: B\n"C": just a string\n');
    expect(() => createEngine({ phrasebookPath: bad })).toThrow(ConfigError);
    try {
      createEngine({ phrasebookPath: bad });
    } catch (err) {
      expect((err as ConfigError).format()).toMatch(/bad\.yaml:3: /);
    }
  });
});

describe('style rules', () => {
  it('24-hour clock under dates_and_times or numbers, with underscores or hyphens', () => {
    for (const rules of [
      { dates_and_times: { time_format: 'use_24_hour_clock' } },
      { numbers: { time_format: 'always-use-24-hour-clock' } },
    ]) {
      const out = tr('The call is at 3:30 PM, the check at 12:05 a.m. and 11:00 AM.', {
        targetLang: 'de',
        style: style(rules),
      });
      expect(out).toContain('15:30');
      expect(out).toContain('00:05');
      expect(out).toContain('11:00');
      expect(out).not.toMatch(/[AP]M/);
    }
    // phrasebook translations get style rules too
    expect(
      tr('Meet at 3:30 PM.', {
        targetLang: 'de',
        style: style({ dates_and_times: { time_format: 'use_24_hour_clock' } }),
      }),
    ).toBe('Treffen um 15:30.');
  });

  it('12-hour clock', () => {
    const out = tr('Doors open at 18:45 and close at 00:30.', {
      targetLang: 'fr',
      style: style({ numbers: { time_format: 'always-use-12-hour-clock' } }),
    });
    expect(out).toContain('6:45 PM');
    expect(out).toContain('12:30 AM');
  });

  it('curly quotation marks and apostrophes, markup attributes untouched', () => {
    const rules = {
      punctuation: { quotation_mark_and_apostrophe: 'use_curly_quotation_marks_and_apostrophes' },
    };
    const out = tr(`He said "it's done" and 'fine'. <a href="x">link</a>`, {
      targetLang: 'en',
      style: style(rules),
    });
    expect(out).toMatch(/\u201C.*\u2019.*\u201D/);
    expect(out).toMatch(/\u2018.*\u2019/);
    expect(out).toContain('<a href="x">');
    expect(out.replace(/<[^>]*>/g, '')).not.toMatch(/["']/);
  });

  it('number separators', () => {
    const out = tr('Total 1,234,567.89 and 3.5 but version 1.2.3 and year 2024.', {
      targetLang: 'de',
      style: style({ numbers: { decimal_separator: 'use_comma_and_do_not_use_thousands_separator' } }),
    });
    expect(out).toContain('1234567,89');
    expect(out).toContain('3,5');
    expect(out).toContain('1.2.3');
    expect(out).toContain('2024');
    const fr = tr('Total 1,234,567.89', {
      targetLang: 'fr',
      style: style({
        numbers: { decimal_separator: 'use_comma', thousands_separator: 'use_narrow_no_break_space' },
      }),
    });
    expect(fr).toContain('1\u202F234\u202F567,89');
  });

  it('one rule in each remaining category, and unknown rules are ignored', () => {
    const out = tr('Call +49 30 1234 567 - or wait... Straße & Co!', {
      targetLang: 'de',
      style: style({
        formatting: { phone_number_format: 'do_not_use_spaces', made_up_rule: 'whatever' },
        punctuation: {
          ellipsis: 'use_ellipsis_character',
          dash: 'use_em_dash',
          exclamation_marks: 'do_not_use',
        },
        spelling_and_grammar: { eszett: 'replace_eszett_with_ss' },
        style_and_tone: { abbreviations: 'avoid_abbreviations_and_symbols_that_can_be_spelled_out_easily' },
        vocabulary: { loanwords: 'add_explanation_to_loanword_if_difficult_to_rephrase' },
      }),
    });
    expect(out).toContain('+49301234567');
    expect(out).toContain('\u2026');
    expect(out).toContain(' \u2014 ');
    expect(out).not.toContain('!');
    expect(out).not.toContain('ß');
    expect(out).toContain(' und ');
  });
});

describe('custom instructions', () => {
  it('Do not translate "X" and Always translate "X" as "Y", case-insensitive', () => {
    const s = style({}, [
      'Do not translate "locsync" or “Acme Cloud”',
      'always TRANSLATE "file" as "fichier"',
      'Be friendly.',
    ]);
    const out = tr('Open the File in locsync on Acme Cloud; the file list is long.', {
      targetLang: 'fr',
      style: s,
    });
    expect(out).toContain('locsync');
    expect(out).toContain('Acme Cloud');
    expect(out).toContain('Fichier');
    expect(out).toContain('fichier');
    expect(out).not.toMatch(/\bfile\b/i);
  });

  it('instructions for another source language do not apply', () => {
    const s: EngineStyle = {
      configured_rules: {},
      custom_instructions: [
        { id: '1', label: 'x', prompt: 'Do not translate "locsync"', source_language: 'de' },
      ],
    };
    expect(tr('Open locsync', { targetLang: 'fr', sourceLang: 'en', style: s })).not.toContain('locsync');
  });
});
