// Laravel language files (docs/strings/laravel.md): lang/en/*.php arrays (nested keys, :name
// placeholders, pipes for plurals) and lang/en.json, every byte outside the values kept; hostile
// translations stay PHP data; plurals per target; a sync of an edit sends only the changed value.
// The fixtures are written by hand in the layout `php artisan lang:publish` gives; php-parser reads
// them. laravel/var_export/messages.php is the same file as PHP 8.2 itself prints it (Debian 12's
// php-cli: `echo "<?php\n\nreturn ".var_export(include "lang/en/messages.php", true).";\n";`):
// `array (`, numbered keys, `=> ` before a line break. Where php-cli is installed, PHP itself reads
// locsync's hostile outputs back.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, protectPlaceholders, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { segmentsOf, writerIn } from './string-file.js';
import { checkAgainst, findingsAbout, FIXTURES, syncGoldenThenEdit } from './format-sync.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-laravel-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const MESSAGES = 'laravel/lang/en/messages.php';
const open = async (file = path.join(FIXTURES, MESSAGES), format = 'php') =>
  (await openDocument(file, { format })) as StringDocument;
const write = writerIn(dir);
const source = (name = MESSAGES) => fs.readFile(path.join(FIXTURES, name), 'utf8');
/** The value of one key of a written file, read back. */
const apples = async (lang: string) => {
  const out = path.join(dir, `apples-${lang}.php`);
  await fs.writeFile(out, await write(await open(), lang));
  return [...(await open(out)).values()].filter(([k]) => k.startsWith('apples')).map(([, v]) => v);
};

describe('Laravel language files', () => {
  it('nested keys and :name placeholders; identity is byte-identical; the golden shout', async () => {
    const doc = await open();
    const segments = await segmentsOf(doc);
    expect(segments.map((s) => s.where)).toEqual([
      'key welcome',
      'key title',
      'key apples [0]',
      'key apples [1]',
      'key photos [0]',
      'key photos [1]',
      'key photos [2]',
      'key breadcrumb',
      'key auth.failed',
      'key auth.throttle',
      'key steps[0]',
      'key steps[1]',
    ]);
    expect(segments[0]?.pieces).toEqual([
      { text: 'Welcome, ' },
      { text: ':name', code: true },
      { text: '!' },
    ]);
    const src = await source();
    expect(await write(doc, 'de', () => undefined)).toBe(src);
    expect(await write(doc, 'de')).toBe(
      src
        .replace("'Welcome, :name!'", "'«WELCOME, »:name«!»'")
        .replace('"Photo \\"Library\\""', '"«PHOTO \\"LIBRARY\\"»"')
        .replace(
          "'There is one apple|There are :count apples'",
          "'«THERE IS ONE APPLE»|«THERE ARE »:count« APPLES»'",
        )
        .replace(
          "'{0} No photos|{1} One photo|[2,*] :count photos'",
          "'{0} «NO PHOTOS»|{1} «ONE PHOTO»|[2,*] :count« PHOTOS»'",
        )
        .replace("'Home | Settings'", "'«HOME | SETTINGS»'")
        .replace(
          "'These credentials do not match our records.'",
          "'«THESE CREDENTIALS DO NOT MATCH OUR RECORDS.»'",
        )
        .replace(
          "'Too many login attempts. Please try again in :seconds seconds.'",
          "'«TOO MANY LOGIN ATTEMPTS. PLEASE TRY AGAIN IN »:seconds« SECONDS.»'",
        )
        .replace("'Choose a photo'", "'«CHOOSE A PHOTO»'")
        .replace("'Send it'", "'«SEND IT»'"),
    );
  });

  it(':name is a placeholder only where Laravel reads one (not 10:30, https://, :smile:, a:b)', () => {
    expect(protectPlaceholders('At 10:30 see https://x.io :smile: a:b').some((p) => p.code)).toBe(false);
    expect(
      protectPlaceholders('Hi :Name, (:count) :NAME')
        .filter((p) => p.code)
        .map((p) => p.text),
    ).toEqual([':Name', ':count', ':NAME']);
  });

  it('lang/en.json: :name protected, identity byte-identical', async () => {
    const doc = await open(path.join(FIXTURES, 'laravel/lang/en.json'), 'json');
    const segments = await segmentsOf(doc);
    expect(segments[0]?.pieces).toEqual([{ text: 'Welcome back, ' }, { text: ':name', code: true }]);
    expect(await write(doc, 'de', () => undefined)).toBe(await source('laravel/lang/en.json'));
  });

  it('lang/en.json: hostile translations stay JSON data; the checks catch a dropped :name', async () => {
    const json = path.join(FIXTURES, 'laravel/lang/en.json');
    const hostile = `"q" \\ \\" }, "x": "y" 10:30 https://x\nnext \u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = path.join(dir, 'hostile.json');
    await (await open(json, 'json')).write(evil, { path: out, format: 'json' }, { targetLang: 'ar' });
    expect(JSON.parse(await fs.readFile(out, 'utf8'))).toEqual({
      'Welcome back, :name': `${hostile}:name`,
      'Log out': hostile,
    });
    const good = path.join(FIXTURES, 'laravel/lang/de.json');
    const passed = await checkAgainst('laravel/lang/en.json', good, 'json');
    expect(passed.outcome).not.toBe('failed');
    expect(findingsAbout(passed, ':name')).toEqual([]);
    const bad = path.join(dir, 'bad.json');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace(/:name(?=[^"]*"\s*,)/, ''));
    expect(findingsAbout(await checkAgainst('laravel/lang/en.json', bad, 'json'), ':name')).toHaveLength(1);
  });

  it('pipes: ja one form, ru three, ar six; interval forms keep their intervals', async () => {
    expect(await apples('ja')).toEqual(['«THERE ARE »:count« APPLES»']);
    expect(await apples('ru')).toEqual([
      '«THERE IS ONE APPLE»',
      '«THERE ARE »:count« APPLES»',
      '«THERE ARE »:count« APPLES»',
    ]);
    const ar = await apples('ar');
    expect(ar).toHaveLength(6);
    expect(ar[1]).toBe('«THERE IS ONE APPLE»'); // Arabic's index for n = 1
    expect(ar[0]).toBe('«THERE ARE »:count« APPLES»');
    for (const lang of ['ja', 'ru', 'ar'])
      expect(await write(await open(), lang)).toContain(
        "'{0} «NO PHOTOS»|{1} «ONE PHOTO»|[2,*] :count« PHOTOS»'",
      );
    expect((await open()).addedForms('ru').map((f) => f.key)).toEqual(['apples [2]']);
  });

  it('hostile translations (PHP quotes, $, backslashes, ?>, newlines, RTL) stay data', async () => {
    const hostile = `"q" it's "q" \\' \\\\ $x \\$y ?> <?php exit; ]; //\nnext \u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = path.join(dir, 'hostile.php');
    await (await open()).write(evil, { path: out, format: 'php' }, { targetLang: 'ar' });
    const back = await open(out);
    expect(back.values().get('welcome')).toBe(`${hostile}:name${hostile}`);
    expect(back.values().get('title')).toBe(hostile); // was "double-quoted"
    expect(back.values().get('auth.failed')).toBe(hostile);
    expect(back.values().get('photos [0]')).toBe(hostile);
  });

  it('the output checks pass on good output and catch a dropped :name', async () => {
    // the local service's German (a shout reads as English to the language check)
    const good = path.join(FIXTURES, 'laravel/lang/de/messages.php');
    const passed = await checkAgainst(MESSAGES, good, 'php');
    expect(passed.outcome).not.toBe('failed');
    expect(findingsAbout(passed, ':name')).toEqual([]);
    const bad = path.join(dir, 'bad.php');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace(':name!', '!'));
    expect(findingsAbout(await checkAgainst(MESSAGES, bad, 'php'), ':name')).toHaveLength(1);
    const dropped: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} :extra`));
    const out = path.join(dir, 'made-up.php');
    await expect(
      (await open()).write(dropped, { path: out, format: 'php' }, { targetLang: 'de' }),
    ).rejects.toThrow(PlaceholderCheckError);
  });

  it('a broken file, or PHP that returns no array, is refused naming its format and line', async () => {
    const broken = path.join(dir, 'broken.php');
    await fs.writeFile(broken, "<?php\nreturn [\n  'a' => 'b'\n  'c' => 'd',\n];\n");
    await expect(open(broken)).rejects.toThrow(/the \.php file is not valid PHP \(line 4\)/);
    const code = path.join(dir, 'code.php');
    await fs.writeFile(code, '<?php\necho "hi";\n');
    await expect(open(code)).rejects.toThrow(/not a Laravel language file: it does not return an array/);
  });
});

const VAR_EXPORT = 'laravel/var_export/messages.php';
const HAS_PHP = existsSync('/usr/bin/php');
/** The array a PHP file returns, as PHP itself reads it (json_encode of its include). */
const phpReads = (file: string): unknown =>
  JSON.parse(
    execFileSync('php', ['-r', 'echo json_encode(include $argv[1], JSON_UNESCAPED_UNICODE);', file], {
      encoding: 'utf8',
    }),
  );

describe('a Laravel language file PHP’s var_export wrote', () => {
  it('the same values as the file written by hand; identity is byte-identical', async () => {
    const doc = await open(path.join(FIXTURES, VAR_EXPORT));
    expect([...doc.values()]).toEqual([...(await open()).values()]);
    expect(await write(doc, 'de', () => undefined)).toBe(await source(VAR_EXPORT));
  });

  it('a list item is named by the key PHP gives it, the same written or not', async () => {
    const mixed = path.join(dir, 'mixed.php');
    await fs.writeFile(
      mixed,
      "<?php\nreturn ['title' => 'Title', 'First', 5 => 'Fifth', 'Sixth', '7' => 'Seventh', 'x' => ['A', 1 => 'B']];\n",
    );
    const keys = [...(await open(mixed)).values().keys()];
    expect(keys).toEqual(['title', '[0]', '[5]', '[6]', '[7]', 'x[0]', 'x[1]']);
    // PHP's own keys for the same array
    if (HAS_PHP)
      expect(Object.keys(phpReads(mixed) as object).sort()).toEqual(['0', '5', '6', '7', 'title', 'x']);
  });

  it.skipIf(!HAS_PHP)('PHP itself reads hostile translations back as the data locsync wrote', async () => {
    const hostile = `"q" it's \\' \\\\ $x $y->z \\$z ?> <?php exit; ]; //\nnext \u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    for (const name of [MESSAGES, VAR_EXPORT]) {
      const out = path.join(dir, `php-reads-${path.basename(path.dirname(name))}.php`);
      await (
        await open(path.join(FIXTURES, name))
      ).write(evil, { path: out, format: 'php' }, { targetLang: 'ar' });
      const back = phpReads(out) as Record<string, unknown>;
      expect(back.welcome).toBe(`${hostile}:name${hostile}`);
      expect(back.title).toBe(hostile);
      expect(back.auth).toEqual({ failed: hostile, throttle: `${hostile}:seconds${hostile}` });
      expect(back.max).toBe(255);
      // every key as the source has it: nothing ran (an `exit` would have ended the output)
      expect(Object.keys(back)).toEqual(Object.keys(phpReads(path.join(FIXTURES, name)) as object));
    }
  });
});

describe('a Laravel language file on the segment path', () => {
  it('the local service’s German is the golden file; an edit sends only the changed value', async () => {
    await syncGoldenThenEdit({
      name: 'messages.php',
      from: MESSAGES,
      output: 'lang/{lang}/messages.php',
      golden: 'laravel/lang/de/messages.php',
      edit: (src) => src.replace("'Send it'", "'Send it now'"),
      edited: 1,
    });
  });

  it('lang/en.json beside it: lang/de.json is the golden file; an edit sends only that value', async () => {
    await syncGoldenThenEdit({
      name: 'en.json',
      from: 'laravel/lang/en.json',
      output: 'src/ui/{lang}.json',
      golden: 'laravel/lang/de.json',
      edit: (src) => src.replace('"Log out": "Log out"', '"Log out": "Log out now"'),
      edited: 1,
    });
  });
});
