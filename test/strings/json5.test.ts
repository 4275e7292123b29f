// JSONC and JSON5 string files (docs/strings/json5.md): comments, trailing commas, unquoted keys and
// single quotes kept byte for byte; values translated in their own quote style; hostile
// translations stay data; plurals per target; the local service's German is the golden file and a
// sync of an edit sends only the changed value.
// Fixtures en.jsonc and en.json5 are written by hand (Debian has no JSONC/JSON5 writer but node-json5,
// whose stringify drops comments); each is checked to parse with the json5 package.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import JSON5 from 'json5';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { segmentsOf, shout, writerIn } from './string-file.js';
import { syncGoldenThenEdit } from './format-sync.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-json5-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const open = async (name: string) =>
  (await openDocument(path.join(FIXTURES, name), { format: path.extname(name).slice(1) })) as StringDocument;
const source = (name: string) => fs.readFile(path.join(FIXTURES, name), 'utf8');

const write = writerIn(dir);

describe('JSONC and JSON5 string files', () => {
  it('JSONC: keys read past comments and trailing commas; identity byte-identical; golden output', async () => {
    const doc = await open('en.jsonc');
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key settings.title',
      'key settings.greeting',
      'key settings.saved',
      'key files',
    ]);
    expect(await write(doc, 'de', () => undefined)).toBe(await source('en.jsonc'));
    expect(await write(doc, 'de')).toBe(
      (await source('en.jsonc'))
        .replace('"Settings"', '"«SETTINGS»"')
        .replace('"Hello, {{name}}!"', '"«HELLO, »{{name}}«!»"')
        .replace('"Saved %d files"', '"«SAVED »%d« FILES»"')
        .replace('{# file} other {# files}', '{#« FILE»} other {#« FILES»}'),
    );
  });

  it('JSON5: unquoted keys, single quotes and hex kept; each value in its own quote style', async () => {
    const doc = await open('en.json5');
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key app.title',
      'key app.welcome',
      'key app.quote',
      'key menu-open',
      'key steps[0]',
      'key steps[1]',
      'key files',
    ]);
    const src = await source('en.json5');
    expect(await write(doc, 'de', () => undefined)).toBe(src);
    const out = await write(doc, 'de');
    expect(out).toBe(
      src
        .replace("'Photo Library'", "'«PHOTO LIBRARY»'")
        .replace('"Welcome, {0}!"', '"«WELCOME, »{0}«!»"')
        .replace(`'Tap "Share" to send'`, `'«TAP "SHARE" TO SEND»'`)
        .replace("'Open…'", "'«OPEN…»'")
        .replace("['Choose a photo', 'Send it',]", "['«CHOOSE A PHOTO»', '«SEND IT»',]")
        .replace('{# file} other {# files}', '{#« FILE»} other {#« FILES»}'),
    );
    expect((JSON5.parse(out) as { app: { max: number } }).app.max).toBe(255);
  });

  it('hostile translations (quotes, comment and brace syntax, newlines, RTL) stay data', async () => {
    const hostile = `it's "quoted" \\ // not a comment */ }, ] \n next line \u202Eمرحبا`;
    // (an ICU message's braces are its syntax: that value is refused, not escaped, so it gets shout)
    const evil: TranslationOf = (s) =>
      s.where === 'key files' ? shout(s) : s.pieces.map((p) => (p.code ? p.text : hostile));
    for (const name of ['en.jsonc', 'en.json5']) {
      const doc = await open(name);
      const out = path.join(dir, `hostile-${name}`);
      await doc.write(evil, { path: out, format: doc.format }, { targetLang: 'ar' });
      const back = (await openDocument(out, { format: doc.format })) as StringDocument;
      const title = name === 'en.jsonc' ? 'settings.title' : 'app.title';
      expect(back.values().get(title), name).toBe(hostile);
      expect([...back.values().keys()], name).toEqual([...doc.values().keys()]);
    }
  });

  it('plural branches become the target’s: ja other, ru one few many other, ar six forms', async () => {
    const files = async (lang: string) =>
      (JSON5.parse(await write(await open('en.json5'), lang)) as { files: string }).files;
    expect(await files('ja')).toBe('{count, plural, other {#« FILES»}}');
    expect(await files('ru')).toBe(
      '{count, plural, one {#« FILE»} few {#« FILES»} many {#« FILES»} other {#« FILES»}}',
    );
    expect(await files('ar')).toBe(
      '{count, plural, zero {#« FILES»} one {#« FILE»} two {#« FILES»} few {#« FILES»} many {#« FILES»} other {#« FILES»}}',
    );
  });

  it('the output checks pass on good output and catch a dropped placeholder', async () => {
    const doc = await open('en.jsonc');
    const good = path.join(dir, 'good.jsonc');
    await fs.writeFile(good, await write(doc, 'de'));
    const check = (out: string) =>
      checkOutput({
        source: { path: path.join(FIXTURES, 'en.jsonc'), format: 'jsonc' },
        output: { path: out, format: 'jsonc' },
        targetLang: 'de',
        sourceLang: 'en',
        settings: DEFAULT_QA_SETTINGS,
      });
    const aboutPercentD = (r: { findings: Array<{ message: string }> }) =>
      r.findings.filter((f) => f.message.includes('"%d"'));
    const passed = await check(good);
    expect(passed.outcome).not.toBe('failed');
    expect(aboutPercentD(passed)).toEqual([]);
    const bad = path.join(dir, 'bad.jsonc');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace('»%d«', ''));
    expect(aboutPercentD(await check(bad))).toHaveLength(1);
    // the writer puts every code piece back itself, and refuses a value with one made up
    const dropped: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} {{x}}`));
    const out = path.join(dir, 'dropped.jsonc');
    await expect(doc.write(dropped, { path: out, format: 'jsonc' }, { targetLang: 'de' })).rejects.toThrow(
      PlaceholderCheckError,
    );
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('a broken file is refused naming its format and line', async () => {
    const bad = path.join(dir, 'broken.json5');
    await fs.writeFile(bad, "{\n  a: 'b',\n  c: \n}\n");
    await expect(openDocument(bad, { format: 'json5' })).rejects.toThrow(
      /the \.json5 file is not valid JSON5 \(line 4\)/,
    );
  });
});

describe('JSONC and JSON5 files on the segment path', () => {
  it.each([
    ['en.jsonc', 'de.jsonc', (src: string) => src.replace('"Settings"', '"Preferences"')],
    ['en.json5', 'de.json5', (src: string) => src.replace("'Send it'", "'Send it now'")],
  ])(
    '%s: the local service’s German is the golden file (comments kept); an edit sends only the changed value',
    async (name, golden, edit) => {
      await syncGoldenThenEdit({
        name,
        output: `src/ui/{lang}.${name.split('.')[1]!}`,
        golden,
        edit,
        edited: 1,
      });
    },
  );
});
