// TOML string files (docs/strings/toml.md): tables, arrays of tables, dotted and quoted keys,
// arrays, inline tables and comments kept byte for byte; go-i18n plural tables get the target's
// forms; hostile translations stay data; a sync of an edit sends only the changed value.
// The fixture en.toml is written by hand in the shape Hugo's i18n files and go-i18n's goi18n write
// (go-i18n is not in Debian); smol-toml reads it.
// python/strings.toml is written by tomlkit (Debian's python3-tomlkit, python/make-toml.py): its
// layout of comments, literal and multi-line strings, arrays of tables; Python's own tomllib
// (python/read-toml.py) reads locsync's outputs back.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { segmentsOf, writerIn } from './string-file.js';
import {
  checkAgainst,
  findingsAbout,
  FIXTURES,
  HAS_PYTHON,
  pythonReads,
  syncGoldenThenEdit,
} from './format-sync.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-toml-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const open = async (file = path.join(FIXTURES, 'en.toml')) =>
  (await openDocument(file, { format: 'toml' })) as StringDocument;
const write = writerIn(dir);
const source = () => fs.readFile(path.join(FIXTURES, 'en.toml'), 'utf8');

describe('TOML string files', () => {
  it('every string value is read by its key path; identity is byte-identical; the golden shout', async () => {
    const doc = await open();
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key title',
      'key home (other)',
      'key files (one)',
      'key files (other)',
      'key settings.greeting',
      'key settings.quoted key',
      'key settings.help',
      'key settings.steps[0]',
      'key settings.steps[1]',
      'key settings.button.label',
      'key tips[0].text',
      'key tips[1].text',
    ]);
    const src = await source();
    expect(await write(doc, 'de', () => undefined)).toBe(src);
    expect(await write(doc, 'de')).toBe(
      src
        .replace('"Photo Library"', '"«PHOTO LIBRARY»"')
        .replace('"Home"', '"«HOME»"')
        .replace('"{{.Count}} file"', '"{{.Count}}« FILE»"')
        .replace('"{{.Count}} files"', '"{{.Count}}« FILES»"')
        .replace("'Hello, %s!'", "'«HELLO, »%s«!»'")
        .replace('"Tap \\"Share\\" to send"', '"«TAP \\"SHARE\\" TO SEND»"')
        .replace('Choose a photo,\nthen send it.', '«CHOOSE A PHOTO,\nTHEN SEND IT.»')
        .replace('"Open the app"', '"«OPEN THE APP»"')
        .replace("'Pick a photo'", "'«PICK A PHOTO»'")
        .replace('"Save"', '"«SAVE»"')
        .replace('"Swipe left to delete"', '"«SWIPE LEFT TO DELETE»"')
        .replace('"Hold to select"', '"«HOLD TO SELECT»"'),
    );
  });

  it('hostile translations (TOML syntax, quotes, newlines, RTL) stay data in every string style', async () => {
    const hostile = `it's "q" ''' """ \\ # not a comment ] } [x]\nkey = "v"\n\u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const doc = await open();
    const out = path.join(dir, 'hostile.toml');
    await doc.write(evil, { path: out, format: 'toml' }, { targetLang: 'ar' });
    const back = await open(out);
    expect(back.values().get('title')).toBe(hostile);
    expect(back.values().get('settings.greeting')).toBe(`${hostile}%s${hostile}`); // was 'literal'
    expect(back.values().get('settings.help')).toBe(hostile); // was """multi-line"""
    expect(back.values().get('settings.steps[1]')).toBe(hostile);
    const parsed = parse(await fs.readFile(out, 'utf8')) as { version: number; tips: unknown[] };
    expect([parsed.version, parsed.tips.length]).toEqual([3, 2]);
  });

  it('go-i18n plural tables: ja other, ru one few many other, ar six forms', async () => {
    const files = async (lang: string) => (parse(await write(await open(), lang)) as { files: object }).files;
    expect(await files('ja')).toEqual({ other: '{{.Count}}« FILES»' });
    expect(Object.keys(await files('ru'))).toEqual(['one', 'few', 'many', 'other']);
    expect(await files('ar')).toMatchObject({ zero: '{{.Count}}« FILES»', one: '{{.Count}}« FILE»' });
    expect(Object.keys(await files('ar'))).toHaveLength(6);
    expect((await open()).addedForms('ru').map((f) => f.key)).toEqual(['files (few)', 'files (many)']);
    // the description of a go-i18n message is a note, kept as it is
    expect(await write(await open(), 'ru')).toContain(`description = "The start page's link"`);
  });

  it('the output checks pass on good output and catch a dropped placeholder', async () => {
    const good = path.join(dir, 'good.toml');
    await fs.writeFile(good, await write(await open(), 'de'));
    const passed = await checkAgainst('en.toml', good, 'toml');
    expect(passed.outcome).not.toBe('failed');
    expect(findingsAbout(passed, '%s')).toEqual([]);
    const bad = path.join(dir, 'bad.toml');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace('»%s«', ''));
    expect(findingsAbout(await checkAgainst('en.toml', bad, 'toml'), '%s')).toHaveLength(1);
    const madeUp: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} {0}`));
    const out = path.join(dir, 'made-up.toml');
    await expect(
      (await open()).write(madeUp, { path: out, format: 'toml' }, { targetLang: 'de' }),
    ).rejects.toThrow(PlaceholderCheckError);
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('a broken file is refused naming its format and line', async () => {
    const bad = path.join(dir, 'broken.toml');
    await fs.writeFile(bad, 'a = "b"\n[t]\nc = \n');
    await expect(open(bad)).rejects.toThrow(/the \.toml file is not valid TOML \(line 3\)/);
  });
});

describe('a TOML file on the segment path', () => {
  it('the local service’s German is the golden file; an edit sends only the changed value', async () => {
    await syncGoldenThenEdit({
      name: 'en.toml',
      output: 'src/ui/{lang_bcp47}.toml',
      golden: 'de.toml',
      edit: (src) => src.replace('"Hold to select"', '"Hold to pick"'),
      edited: 1,
    });
  });
});

describe('a TOML file tomlkit wrote', () => {
  const PY = path.join(FIXTURES, 'python/strings.toml');

  it('identity is byte-identical; the local service’s German is golden; an edit sends one value', async () => {
    const doc = await open(PY);
    expect([...doc.values().keys()]).toEqual([
      'title',
      'menu.open',
      'menu.hint',
      'menu.path',
      'menu.help',
      'menu.steps[0]',
      'menu.steps[1]',
      'photos (one)',
      'photos (other)',
      'tips[0].text',
      'tips[1].text',
    ]);
    expect(await write(doc, 'de', () => undefined)).toBe(await fs.readFile(PY, 'utf8'));
    await syncGoldenThenEdit({
      name: 'strings.toml',
      from: 'python/strings.toml',
      output: 'src/ui/strings.{lang_bcp47}.toml',
      golden: 'python/strings.de.toml',
      edit: (src) => src.replace('"Pinch to zoom"', '"Pinch to zoom in"'),
      edited: 1,
    });
  });

  it.skipIf(!HAS_PYTHON)('Python’s tomllib reads hostile translations back as data', async () => {
    const hostile = `it's "q" ''' """ \\ # not a comment ] } [x]\nkey = "v"\n\u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = path.join(dir, 'hostile-tomlkit.toml');
    await (await open(PY)).write(evil, { path: out, format: 'toml' }, { targetLang: 'ar' });
    expect(pythonReads('read-toml.py', out)).toEqual({
      title: hostile,
      menu: {
        open: hostile,
        hint: hostile,
        path: `${hostile}{name}`,
        help: hostile,
        steps: [hostile, hostile],
        size: 3,
      },
      photos: expect.any(Object),
      tips: [{ text: hostile }, { text: hostile }],
    });
    expect(pythonReads('read-toml.py', path.join(FIXTURES, 'python/strings.de.toml'))).toEqual(
      parse(await fs.readFile(path.join(FIXTURES, 'python/strings.de.toml'), 'utf8')),
    );
  });
});
