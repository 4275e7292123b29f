// Apple String Catalogs (docs/strings/xcstrings.md): the source language's units are segments; the
// writer sets the target's localizations and keeps every other language, comment, extractionState
// and shouldTranslate: false string; Xcode's layout kept byte for byte; plurals per target.
// Fixture Localizable.xcstrings written by hand in the layout Xcode 15 writes (Debian has no Xcode):
// the structure of Apple's String Catalog documentation (stringUnit, plural and device variations,
// substitutions), keys sorted, 2-space indent, " : " separators, an empty string entry as Xcode
// prints it, `\/` for a slash.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDocument, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { contentDigest } from '../../src/documents/digest/index.js';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { languagePartDigest } from '../../src/documents/format-registry.js';
import { segmentsOf, shout, writerIn } from './string-file.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';
import { DeliveryLog } from '../../src/delivery/delivered.js';
import { createSyncEvents } from '../../src/sync/events.js';
import {
  member,
  parseXcodeJson,
  printXcodeJson,
  withMember,
  type JsonNode,
} from '../../src/documents/formats/strings/xcode-json.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const CATALOG = path.join(FIXTURES, 'Localizable.xcstrings');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-xcstrings-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const open = async (file = CATALOG, lang?: string) =>
  (await openDocument(file, {
    format: 'xcstrings',
    ...(lang ? { side: 'target' as const, lang } : {}),
  })) as StringDocument;
const write = writerIn(dir);
const source = () => fs.readFile(CATALOG, 'utf8');

interface Unit {
  stringUnit?: { state: string; value: string };
  variations?: Record<string, Record<string, Unit>>;
  substitutions?: Record<
    string,
    { argNum: number; formatSpecifier: string; variations: Record<string, Record<string, Unit>> }
  >;
}
interface Catalog {
  sourceLanguage: string;
  version: string;
  strings: Record<
    string,
    {
      comment?: string;
      extractionState?: string;
      shouldTranslate?: boolean;
      localizations?: Record<string, Unit>;
    }
  >;
}
const parse = (text: string) => JSON.parse(text) as Catalog;

describe('Apple String Catalogs', () => {
  it('the source language units are segments; shouldTranslate: false and other languages are not', async () => {
    expect((await segmentsOf(await open())).map((s) => s.where)).toEqual([
      'key %lld photos (one)',
      'key %lld photos (other)',
      'key album_summary',
      'key album_summary {photos} (one)',
      'key album_summary {photos} (other)',
      'key Open',
      'key Tap to share [iphone]',
      'key Tap to share [mac]',
      'key Welcome, %@!',
    ]);
    // read as the German side: the catalog's own German where it has it
    const de = (await open(CATALOG, 'de')).values();
    expect(de.get('Open')).toBe('Öffnen');
    expect(de.get('%lld photos (one)')).toBe('%lld Foto');
    expect(de.get('Welcome, %@!')).toBe('Welcome, %@!');
  });

  it('writes the target into the catalog, keeps the rest; Xcode layout; a rewrite is byte-identical', async () => {
    const src = await source();
    const out = await write(await open(), 'de');
    const before = parse(src);
    const after = parse(out);
    // every other language, comment, extractionState and the shouldTranslate: false string as they were
    expect(after.strings['Open']?.localizations?.['fr']).toEqual(
      before.strings['Open']?.localizations?.['fr'],
    );
    expect(after.strings['%lld photos']?.localizations?.['en']).toEqual(
      before.strings['%lld photos']?.localizations?.['en'],
    );
    expect(after.strings['Photos/Videos']).toEqual({ shouldTranslate: false });
    expect(after.strings['%lld photos']?.comment).toBe('The number of photos in the library');
    expect(after.strings['%lld photos']?.extractionState).toBe('manual');
    expect(Object.keys(after.strings)).toEqual(Object.keys(before.strings));
    expect(after.strings['Open']?.localizations?.['de']).toEqual({
      stringUnit: { state: 'translated', value: '«OPEN»' },
    });
    expect(after.strings['Welcome, %@!']?.localizations).toEqual({
      de: { stringUnit: { state: 'translated', value: '«WELCOME, »%@«!»' } },
    });
    expect(after.strings['Tap to share']?.localizations?.['de']?.variations?.['device']?.['mac']).toEqual({
      stringUnit: { state: 'translated', value: '«CLICK TO SHARE»' },
    });
    expect(after.strings['album_summary']?.localizations?.['de']?.substitutions?.['photos']?.argNum).toBe(1);
    // only the German entries changed: everything else is the source's bytes (Xcode's layout)
    expect(out).toContain('    "Photos\\/Videos" : {\n      "shouldTranslate" : false\n    },\n');
    expect(out).toContain('"fr" : {\n          "stringUnit" : {\n            "state" : "needs_review",');
    expect(out.endsWith('  "version" : "1.0"\n}\n')).toBe(true);
    // the same translation written into its own output again: byte for byte the same
    const again = path.join(dir, 'again.xcstrings');
    await fs.writeFile(again, out);
    expect(await write(await open(again), 'de')).toBe(out);
    // and the German side reads back what was written
    expect((await open(again, 'de')).values().get('Open')).toBe('«OPEN»');
  });

  it('hostile translations (JSON syntax, quotes, newlines, RTL) stay data', async () => {
    const hostile = `"}, "x" : { \\ \n\t\\u0041 \u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = path.join(dir, 'hostile.xcstrings');
    await (await open()).write(evil, { path: out, format: 'xcstrings' }, { targetLang: 'ar' });
    const back = parse(await fs.readFile(out, 'utf8'));
    expect(back.strings['Open']?.localizations?.['ar']?.stringUnit?.value).toBe(hostile);
    expect(Object.keys(back.strings)).toEqual(Object.keys(parse(await source()).strings));
    expect((await open(out, 'ar')).values().get('Open')).toBe(hostile);
  });

  it('plural variations become the target’s: ja other, ru one few many other, ar six forms', async () => {
    const forms = async (lang: string) => {
      const c = parse(await write(await open(), lang));
      const unit = c.strings['%lld photos']?.localizations?.[lang];
      const sub = c.strings['album_summary']?.localizations?.[lang]?.substitutions?.['photos'];
      return {
        photos: Object.entries(unit?.variations?.['plural'] ?? {}).map(
          ([k, v]) => `${k}: ${v.stringUnit?.value}`,
        ),
        summary: Object.keys(sub?.variations['plural'] ?? {}),
      };
    };
    expect(await forms('ja')).toEqual({ photos: ['other: %lld« PHOTOS»'], summary: ['other'] });
    expect(await forms('ru')).toEqual({
      photos: ['few: %lld« PHOTOS»', 'many: %lld« PHOTOS»', 'one: %lld« PHOTO»', 'other: %lld« PHOTOS»'],
      summary: ['few', 'many', 'one', 'other'],
    });
    expect((await forms('ar')).summary).toEqual(['few', 'many', 'one', 'other', 'two', 'zero']);
    expect((await open()).addedForms('ru').map((f) => f.key)).toEqual([
      '%lld photos (few)',
      '%lld photos (many)',
      'album_summary {photos} (few)',
      'album_summary {photos} (many)',
    ]);
  });

  it('the output checks pass on good output and catch a dropped %@ and %lld', async () => {
    const check = (out: string) =>
      checkOutput({
        source: { path: CATALOG, format: 'xcstrings' },
        output: { path: out, format: 'xcstrings' },
        targetLang: 'ru',
        sourceLang: 'en',
        settings: { ...DEFAULT_QA_SETTINGS, ignore: ['language'] },
      });
    const good = path.join(dir, 'good.xcstrings');
    await fs.writeFile(good, await write(await open(), 'ru'));
    const passed = await check(good);
    expect(passed.findings).toEqual([]);
    expect(passed.outcome).toBe('pass');
    const bad = path.join(dir, 'bad.xcstrings');
    const text = await fs.readFile(good, 'utf8');
    await fs.writeFile(
      bad,
      text.replace('"«WELCOME, »%@«!»"', '"«WELCOME!»"').replace('"%lld« PHOTO»"', '"« ONE PHOTO»"'),
    );
    // placeholders are the values' code pieces: the inline-code check names them
    const findings = (await check(bad)).findings;
    expect(findings.map((f) => f.message)).toEqual([
      'the 2 inline codes of the source "%lld", "%@" missing from the output'.replace('the 2', '2'),
    ]);
    // the writer refuses a translation that lost one
    const dropped: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} %d`));
    await expect(
      (await open()).write(
        dropped,
        { path: path.join(dir, 'no.xcstrings'), format: 'xcstrings' },
        { targetLang: 'de' },
      ),
    ).rejects.toThrow(PlaceholderCheckError);
  });

  it('its digest is the source language’s: other languages written into it leave it as it was', async () => {
    const digest = async (text: string) => {
      const file = path.join(dir, 'digest.xcstrings');
      await fs.writeFile(file, text);
      return (await contentDigest(file, 'xcstrings'))?.digest;
    };
    const src = await source();
    const was = await digest(src);
    expect(was).toMatch(/^[0-9a-f]{64}$/);
    // de and ja written into it, a translator's fr changed, laid out otherwise: the same content
    const de = await write(await open(), 'de');
    const both = path.join(dir, 'both.xcstrings');
    await fs.writeFile(both, de);
    expect(await digest(de)).toBe(was);
    expect(await digest(await write(await open(both), 'ja'))).toBe(was);
    expect(await digest(src.replace('"Ouvrir"', '"Ouvrir le fichier"'))).toBe(was);
    expect(await digest(JSON.stringify(JSON.parse(src)))).toBe(was);
    // the source language's text, a comment, shouldTranslate and a new key are content
    expect(await digest(src.replace('"Click to share"', '"Click here to share"'))).not.toBe(was);
    expect(await digest(src.replace('The number of photos in the library', 'Photos'))).not.toBe(was);
    expect(await digest(src.replace('"shouldTranslate" : false', '"shouldTranslate" : true'))).not.toBe(was);
  });

  it('writes a target into the catalog as it is now (into): what was written there since stays', async () => {
    // de and ja read from the same catalog; ja is written after de, into the file de was written to
    const [forDe, forJa] = [await open(), await open()];
    const file = path.join(dir, 'into.xcstrings');
    await fs.writeFile(file, await source());
    const into = async (doc: StringDocument, lang: string) => {
      const part = path.join(dir, 'into.part');
      await doc.write(shout, { path: part, format: 'xcstrings' }, { targetLang: lang, into: file });
      await fs.rename(part, file);
    };
    await into(forDe, 'de');
    await into(forJa, 'ja');
    const both = await fs.readFile(file, 'utf8');
    const c = parse(both);
    expect(c.strings['Open']?.localizations?.['de']?.stringUnit?.value).toBe('«OPEN»');
    expect(c.strings['Open']?.localizations?.['ja']?.stringUnit?.value).toBe('«OPEN»');
    expect(c.strings['Open']?.localizations?.['fr']?.stringUnit?.state).toBe('needs_review');
    // the same as ja written into de's output: the layout of a catalog written in one go
    const de = path.join(dir, 'de.xcstrings');
    await fs.writeFile(de, await write(await open(), 'de'));
    expect(both).toBe(await write(await open(de), 'ja'));
    // a string added since the catalog was read, and one marked shouldTranslate: false since, stay
    await fs.writeFile(
      file,
      both
        .replace('"Photos\\/Videos" : {', '"Added" : {\n\n    },\n    "Photos\\/Videos" : {')
        .replace('"Open" : {\n', '"Open" : {\n      "shouldTranslate" : false,\n'),
    );
    await into(await open(), 'ru');
    const later = parse(await fs.readFile(file, 'utf8'));
    expect(later.strings['Added']).toEqual({});
    expect(later.strings['Open']?.shouldTranslate).toBe(false);
    expect(later.strings['Open']?.localizations?.['ru']).toBeUndefined();
    expect(later.strings['Tap to share']?.localizations?.['ru']).toBeDefined();
    // a format holding one language has nothing to write into
    const json = path.join(dir, 'one.json');
    await fs.writeFile(json, '{ "a": "Open" }\n');
    const doc = await openDocument(json, { format: 'json' });
    await expect(
      doc.write(shout, { path: path.join(dir, 'x.json'), format: 'json' }, {
        targetLang: 'de',
        into: json,
      } as object & {
        targetLang: string;
      }),
    ).rejects.toThrow(/holds one language/);
  });

  it('a language’s part of a catalog: changed by its own entries only', async () => {
    const part = async (text: string, lang: string) => {
      const file = path.join(dir, 'part.xcstrings');
      await fs.writeFile(file, text);
      return languagePartDigest(file, 'xcstrings', lang);
    };
    const src = await source();
    const de = await write(await open(), 'de');
    const both = path.join(dir, 'part-both.xcstrings');
    await fs.writeFile(both, de);
    const withJa = await write(await open(both), 'ja');
    // ja written into it, fr edited, laid out otherwise: de's part as it was
    expect(await part(withJa, 'de')).toBe(await part(de, 'de'));
    expect(await part(withJa.replace('"Ouvrir"', '"Ouvrir le fichier"'), 'de')).toBe(await part(de, 'de'));
    expect(await part(JSON.stringify(JSON.parse(withJa)), 'de')).toBe(await part(de, 'de'));
    // de's own entries written or edited: another part
    expect(await part(de, 'de')).not.toBe(await part(src, 'de'));
    expect(await part(withJa.replace('"«OPEN»"', '"Öffnen!"'), 'ja')).toBe(await part(withJa, 'ja'));
    expect(await part(de.replace('"«OPEN»"', '"Öffnen!"'), 'de')).not.toBe(await part(de, 'de'));
    expect(await part(withJa, 'pt-br')).toBe(await part(src, 'pt-BR'));
  });

  it('a file that is not a catalog is refused naming the line', async () => {
    const bad = path.join(dir, 'broken.xcstrings');
    await fs.writeFile(bad, '{\n  "sourceLanguage" : "en",\n  "strings" : {\n    "a" : {\n  }\n');
    await expect(openDocument(bad, { format: 'xcstrings' })).rejects.toThrow(
      /the \.xcstrings file is not valid JSON/,
    );
    await fs.writeFile(bad, '{\n  "version" : "1.0"\n}\n');
    await expect(openDocument(bad, { format: 'xcstrings' })).rejects.toThrow(/is not a String Catalog/);
  });
});

let fx: Fixture | undefined;
/** The texts sent to the local service since `mark` (answered), as [texts, characters]. */
const sentSince = (f: Fixture, mark: number) =>
  f.service
    .requests()
    .slice(mark)
    .filter((r) => r.path === '/v2/translate' && r.status === 200 && r.text)
    .map((r) => [r.text!.texts, r.text!.characters]);
/**
 * The catalog in src/App, its targets written by the local service to out/<lang>/, or (`output`
 * src/App/{path}) into the catalog itself.
 */
const catalogFixture = (src: string, targets: string[], output = 'out/{lang_bcp47}/Localizable.xcstrings') =>
  createFixture({
    manifest: {
      mappings: [
        {
          name: 'app',
          source: 'src/App',
          include: ['Localizable.xcstrings'],
          output,
          method: 'segments',
          source_lang: 'en',
          targets: targets.map((lang) => ({ lang })),
        },
      ],
    },
    files: { 'App/Localizable.xcstrings': src },
  });
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('a String Catalog on the segment path', () => {
  it('golden output from the local service; an edit sends only the changed value', async () => {
    const src = await source();
    fx = await catalogFixture(src, ['de']);
    expect((await fx.sync()).failed).toEqual([]);
    expect(fx.read('out/de/Localizable.xcstrings')).toBe(
      await fs.readFile(path.join(FIXTURES, 'Localizable.de.xcstrings'), 'utf8'),
    );
    const mark = fx.mark();
    fx.write('src/App/Localizable.xcstrings', src.replace('"Click to share"', '"Click here to share"'));
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, mark)).toEqual([[1, 'Click here to share'.length]]);
  });

  it('a translator’s edit of another language in the source catalog buys nothing again', async () => {
    const src = await source();
    fx = await catalogFixture(src, ['de', 'ja']);
    expect((await fx.sync()).failed).toEqual([]);
    const de = fx.read('out/de/Localizable.xcstrings');
    const mark = fx.mark();
    // Xcode saves the catalog with a translator's French changed and reviewed
    fx.write(
      'src/App/Localizable.xcstrings',
      src.replace('"Ouvrir"', '"Ouvrir le fichier"').replace('"needs_review"', '"translated"'),
    );
    const again = await fx.sync();
    expect(again.failed).toEqual([]);
    expect(sentSince(fx, mark)).toEqual([]);
    expect(fx.read('out/de/Localizable.xcstrings')).toBe(de);
    // and the next sync, with nothing changed, has nothing to do either
    const next = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, next)).toEqual([]);
  });
});

/** The catalog in src/App, every target written into it (output: the source file itself). */
const inPlaceFixture = (src: string, targets: string[]) => catalogFixture(src, targets, 'src/App/{path}');
const CATALOG_IN_APP = 'src/App/Localizable.xcstrings';
/** A catalog's text without one language's entries, printed as Xcode prints it. */
const withoutLanguage = (text: string, lang: string): string => {
  const { root, before, after } = parseXcodeJson(text, 'catalog');
  const strings = member(root, 'strings');
  if (strings?.kind !== 'object') throw new Error('no strings');
  const dropped: JsonNode = {
    kind: 'object',
    members: strings.members.map((m) => {
      const locs = member(m.value, 'localizations');
      if (locs?.kind !== 'object') return m;
      const kept: JsonNode = { kind: 'object', members: locs.members.filter((l) => l.key !== lang) };
      return { ...m, value: withMember(m.value, 'localizations', kept) };
    }),
  };
  return before + printXcodeJson(withMember(root, 'strings', dropped)) + after;
};
const mtimeOf = (f: Fixture, rel: string) => fs.stat(path.join(f.dir, rel)).then((s) => s.mtimeMs);

describe('a String Catalog whose targets are written into it', () => {
  it('de and ja in the one catalog, every other language and byte kept; then nothing to do', async () => {
    const src = await source();
    fx = await inPlaceFixture(src, ['de', 'ja']);
    const events = createSyncEvents();
    const delivered = new DeliveryLog(events, 'sync');
    const first = await fx.sync({ events });
    expect(first.failed).toEqual([]);
    // what a git delivery commits: the one catalog (not a file per part of it)
    expect(delivered.take().written.map((w) => w.path)).toEqual([CATALOG_IN_APP]);
    const out = fx.read(CATALOG_IN_APP);
    const c = parse(out);
    // both targets, the translator's fr, the comments and the untranslated string as they were
    expect(c.strings['Open']?.localizations?.['de']?.stringUnit).toEqual({
      state: 'translated',
      value: '[de] Ópěñ ~',
    });
    expect(c.strings['Open']?.localizations?.['ja']?.stringUnit).toEqual({
      state: 'translated',
      value: '[ja] Òpęņ ~',
    });
    expect(c.strings['Open']?.localizations?.['fr']).toEqual(
      parse(src).strings['Open']?.localizations?.['fr'],
    );
    expect(
      Object.keys(c.strings['%lld photos']?.localizations?.['ja']?.variations?.['plural'] ?? {}),
    ).toEqual(['other']);
    expect(c.strings['%lld photos']?.comment).toBe('The number of photos in the library');
    // without ja, byte for byte the catalog de alone is written as (Xcode's layout, `\/` kept)
    expect(withoutLanguage(out, 'ja')).toBe(
      await fs.readFile(path.join(FIXTURES, 'Localizable.de.xcstrings'), 'utf8'),
    );
    // no copy per language, nothing beside it
    expect((await fs.readdir(path.join(fx.dir, 'src/App'))).sort()).toEqual(['Localizable.xcstrings']);

    // a second sync: nothing sent, nothing written
    const mtime = await mtimeOf(fx, CATALOG_IN_APP);
    const mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(sentSince(fx, mark)).toEqual([]);
    expect(fx.read(CATALOG_IN_APP)).toBe(out);
    expect(await mtimeOf(fx, CATALOG_IN_APP)).toBe(mtime);
    // a translator's French edited in Xcode: not a target, nothing to do either
    const fr = out.replace('"Ouvrir"', '"Ouvrir le fichier"');
    fx.write(CATALOG_IN_APP, fr);
    const third = await fx.sync();
    expect(third.failed).toEqual([]);
    expect(sentSince(fx, mark)).toEqual([]);
    expect(fx.read(CATALOG_IN_APP)).toBe(fr);
    expect(fx.exists('src/App/Localizable.locsync-new.de.xcstrings')).toBe(false);
  });

  it('a changed source string is sent once per language and rewritten in both entries', async () => {
    fx = await inPlaceFixture(await source(), ['de', 'ja']);
    expect((await fx.sync()).failed).toEqual([]);
    const mark = fx.mark();
    fx.write(CATALOG_IN_APP, fx.read(CATALOG_IN_APP).replace('"Click to share"', '"Click here to share"'));
    expect((await fx.sync()).failed).toEqual([]);
    const n = 'Click here to share'.length;
    expect(sentSince(fx, mark)).toEqual([
      [1, n],
      [1, n],
    ]);
    const c = parse(fx.read(CATALOG_IN_APP));
    const mac = (lang: string) =>
      c.strings['Tap to share']?.localizations?.[lang]?.variations?.['device']?.['mac']?.stringUnit?.value;
    expect(mac('en')).toBe('Click here to share');
    expect(mac('de')).toBe('[de] Çļĩçķ ħěřě ťó ŝħâřě ~');
    expect(mac('ja')).toBe('[ja] Çłĭçķ ħęŗę ţò šħåŗę ~');
    // ja written after de is no person's edit of de (nor de of ja): nothing put beside the catalog
    expect((await fs.readdir(path.join(fx.dir, 'src/App'))).sort()).toEqual(['Localizable.xcstrings']);
    // and the next sync has nothing to do
    const next = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, next)).toEqual([]);
  });

  it('a person’s edit of the de entries is kept for de only; ja is written', async () => {
    fx = await inPlaceFixture(await source(), ['de', 'ja']);
    expect((await fx.sync()).failed).toEqual([]);
    const written = fx.read(CATALOG_IN_APP);
    const jaWas = parse(written).strings['Tap to share']?.localizations?.['ja'];
    // in Xcode: de's Open and de's mac wording edited, and the mac source string changed
    fx.write(
      CATALOG_IN_APP,
      written
        .replace('"[de] Ópěñ ~"', '"Öffnen!"')
        .replace('"[de] Çļĩçķ ťó ŝħâřě ~"', '"Zum Teilen klicken"')
        .replace('"Click to share"', '"Click here to share"'),
    );
    const s = await fx.sync();
    expect(s.failed).toEqual([]);
    const c = parse(fx.read(CATALOG_IN_APP));
    const de = c.strings['Tap to share']?.localizations?.['de']?.variations?.['device'];
    // de: the person's wording stays in the catalog; the new translation of the changed string is
    // beside it, in a file that names its language (a conflict of de alone)
    expect(c.strings['Open']?.localizations?.['de']?.stringUnit?.value).toBe('Öffnen!');
    expect(de?.['mac']?.stringUnit?.value).toBe('Zum Teilen klicken');
    const beside = parse(fx.read('src/App/Localizable.locsync-new.de.xcstrings'));
    expect(
      beside.strings['Tap to share']?.localizations?.['de']?.variations?.['device']?.['mac']?.stringUnit
        ?.value,
    ).toBe('[de] Çļĩçķ ħěřě ťó ŝħâřě ~');
    expect(fx.exists('src/App/Localizable.locsync-new.ja.xcstrings')).toBe(false);
    // ja: its entry of the changed string written, its other entries as they were
    const ja = c.strings['Tap to share']?.localizations?.['ja']?.variations?.['device'];
    expect(ja?.['mac']?.stringUnit?.value).toBe('[ja] Çłĭçķ ħęŗę ţò šħåŗę ~');
    expect(ja?.['iphone']).toEqual(jaWas?.variations?.['device']?.['iphone']);
    // status names the conflict of de alone
    const status = await runCliOn(fx, 'status');
    expect(status.stdout).toContain('src/App/Localizable.xcstrings#de');
    expect(status.stdout).not.toContain('src/App/Localizable.xcstrings#ja');

    // the new translation taken: de's entries from beside it, ja's as the catalog has them
    const before = fx.read(CATALOG_IN_APP);
    const taken = await runCliOn(fx, 'outputs', 'take-new', 'src/App/Localizable.xcstrings#de');
    expect(taken.code).toBe(0);
    const after = parse(fx.read(CATALOG_IN_APP));
    const mac = (lang: string) =>
      after.strings['Tap to share']?.localizations?.[lang]?.variations?.['device']?.['mac']?.stringUnit
        ?.value;
    expect(mac('de')).toBe('[de] Çļĩçķ ħěřě ťó ŝħâřě ~');
    expect(mac('ja')).toBe('[ja] Çłĭçķ ħęŗę ţò šħåŗę ~');
    expect(fx.read('src/App/Localizable.locsync-edited.de.xcstrings')).toBe(before);
    expect(fx.exists('src/App/Localizable.locsync-new.de.xcstrings')).toBe(false);
    // and the next sync finds every part as written: nothing sent, nothing written
    const mark = fx.mark();
    const resolved = fx.read(CATALOG_IN_APP);
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, mark)).toEqual([]);
    expect(fx.read(CATALOG_IN_APP)).toBe(resolved);
  });
});

describe('a String Catalog written in place, in the round trip and memory tools', () => {
  it('xliff export and import of de: only de’s entries change, ja and fr kept, nothing sent', async () => {
    const src = await source();
    fx = await inPlaceFixture(src, ['de', 'ja']);
    expect((await fx.sync()).failed).toEqual([]);
    const written = fx.read(CATALOG_IN_APP);
    const exported = await runCliOn(fx, 'xliff', 'export', '--lang', 'de', '-o', 'de.xlf');
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('of 1 document');
    const xlf = fx.read('de.xlf');
    // the export pairs each unit with de's entry (not the source language, not ja)
    expect(xlf).toContain('[de] Ópěñ ~');
    expect(xlf).not.toContain('[ja] Òpęņ ~');
    // a translator's wording of Open
    fx.write('de.xlf', xlf.replace('[de] Ópěñ ~', 'Öffnen'));
    const imported = await runCliOn(fx, 'xliff', 'import', 'de.xlf');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('1 unit taken as reviewed wording, 0 refused');
    const mark = fx.mark();
    const s = await fx.sync();
    expect(s.failed).toEqual([]);
    expect(s.translated).toBe(1);
    expect(sentSince(fx, mark)).toEqual([]);
    const now = fx.read(CATALOG_IN_APP);
    // the catalog as it was, de's Open in the translator's wording: ja, fr, every other entry kept
    expect(now).toBe(written.replace('"[de] Ópěñ ~"', '"Öffnen"'));
    expect((await fs.readdir(path.join(fx.dir, 'src/App'))).sort()).toEqual(['Localizable.xcstrings']);
    // and the next sync has nothing to do
    const next = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, next)).toEqual([]);
    expect(fx.read(CATALOG_IN_APP)).toBe(now);
  });

  it('memory align reads de’s entries of the catalog for the #de part', async () => {
    // a catalog whose de entries were translated before locsync, one of them by a person
    const before = await fs.readFile(path.join(FIXTURES, 'Localizable.de.xcstrings'), 'utf8');
    fx = await inPlaceFixture(before.replace('"[de] Ópěñ ~"', '"Öffnen"'), ['de', 'ja']);
    const aligned = await runCliOn(fx, 'memory', 'align', '--lang', 'de');
    expect(aligned.code, aligned.stderr).toBe(0);
    expect(aligned.stdout).toMatch(/^1 documents aligned, [1-9]\d* translations stored/);
    const tmx = await runCliOn(fx, 'memory', 'export', '-o', 'memory.tmx');
    expect(tmx.code, tmx.stderr).toBe(0);
    const memory = fx.read('memory.tmx');
    expect(memory).toContain('<seg>Öffnen</seg>');
    expect(memory).toContain('[de] Çļĩçķ ťó ŝħâřě ~');
    // the source language's wording is not stored as de's
    expect(memory).not.toMatch(/<tuv xml:lang="de">\s*<seg>Open<\/seg>/);
    // and the sync writes de from the memory (nothing sent for it) and ja from the service
    const mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(sentSince(fx, mark).length).toBe(1);
    const c = parse(fx.read(CATALOG_IN_APP));
    expect(c.strings['Open']?.localizations?.['de']?.stringUnit?.value).toBe('Öffnen');
    expect(c.strings['Open']?.localizations?.['ja']?.stringUnit?.value).toBe('[ja] Òpęņ ~');
  });
});
