// Plural forms the target language has and the source has not, or the other way round, through a
// real sync on the segment path against the local service: the writers give each target its CLDR
// plural forms (Japanese `other` alone, Russian and Polish four, Arabic six), and the output checks
// compare the output with the source laid out in those forms, so that every such output is
// delivered, nothing is flagged, and nothing is bought again by the next sync.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { createFixture, runCliOn, type Fixture } from '../sync/fixture.js';

const ANDROID = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="welcome">Welcome, %1$s!</string>
    <plurals name="photos">
        <item quantity="one">%d photo in the album</item>
        <item quantity="other">%d photos in the album</item>
    </plurals>
    <string name="open">Open the file now</string>
</resources>
`;
const ICU = '{count, plural, one {# file was shared with you} other {# files were shared with you}}';
const JSON_SRC = `{\n  "files": "${ICU}",\n  "title": "Photo library of the team"\n}\n`;
const ARB_SRC = `{\n  "@@locale": "en",\n  "files": "${ICU}",\n  "@files": { "placeholders": { "count": {} } }\n}\n`;
const YAML_SRC = `files: "${ICU}"\ntitle: Photo library of the team\n`;
const PO_SRC = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "1 photo was added"
msgid_plural "%d photos were added"
msgstr[0] ""
msgstr[1] ""

msgid "Quit the program"
msgstr ""
`;
/** An iOS plural rule of one variable: `one` and `other` (the string files' own fixture). */
const STRINGSDICT_SRC = fs.readFileSync(
  path.resolve(import.meta.dirname, '../strings/fixtures/Localizable.stringsdict'),
  'utf8',
);

const FILES = {
  'android/values/strings.xml': ANDROID,
  'web/en.json': JSON_SRC,
  'flutter/app_en.arb': ARB_SRC,
  'yaml/en.yml': YAML_SRC,
  'po/messages.pot': PO_SRC,
  'ios/en.lproj/Localizable.stringsdict': STRINGSDICT_SRC,
};

/** The mappings of every format (`only` those named) into `langs`. */
function manifest(langs: readonly string[], only?: readonly string[]): Record<string, unknown> {
  const common = { method: 'segments', source_lang: 'en', targets: langs.map((lang) => ({ lang })) };
  const one = (name: string, file: string, output: string) => ({
    name,
    source: `src/${name}`,
    include: [file],
    output,
    ...common,
  });
  return {
    mappings: [
      {
        name: 'android',
        source: 'src/android/values',
        output: 'out/android/values-{lang_android}/{name}',
        ...common,
      },
      one('web', 'en.json', 'out/web/{lang_bcp47}.json'),
      one('flutter', 'app_en.arb', 'out/flutter/app_{lang_posix}.arb'),
      one('yaml', 'en.yml', 'out/yaml/{lang_bcp47}.yml'),
      one('po', 'messages.pot', 'out/po/{lang_posix}.po'),
      { name: 'ios', source: 'src/ios/en.lproj', output: 'out/ios/{lang_bcp47}.lproj/{name}', ...common },
    ].filter((m) => !only || only.includes(m.name)),
  };
}

/** The outputs of a target, by format. */
const outputs = (lang: string) => ({
  android: `out/android/values-${lang}/strings.xml`,
  json: `out/web/${lang}.json`,
  arb: `out/flutter/app_${lang}.arb`,
  yaml: `out/yaml/${lang}.yml`,
  po: `out/po/${lang}.po`,
  stringsdict: `out/ios/${lang}.lproj/Localizable.stringsdict`,
});

/** CLDR's cardinal plural categories of each language (unicode.org/cldr, "Language Plural Rules"). */
const FAMILIES: Array<{ family: string; langs: string[]; forms: string[]; nplurals: number }> = [
  { family: 'one form', langs: ['ja', 'zh', 'ko'], forms: ['other'], nplurals: 1 },
  { family: 'Slavic', langs: ['ru', 'pl'], forms: ['one', 'few', 'many', 'other'], nplurals: 3 },
  { family: 'Arabic', langs: ['ar'], forms: ['zero', 'one', 'two', 'few', 'many', 'other'], nplurals: 6 },
];

const ICU_CATEGORIES = /(?:^|[\s}])(zero|one|two|few|many|other) \{/g;
const categoriesOf = (message: string) => [...message.matchAll(ICU_CATEGORIES)].map((m) => m[1]);

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.each(FAMILIES)('plural forms of the $family rule ($langs)', ({ langs, forms, nplurals }) => {
  it('are written in every string format, pass the checks and are delivered; the next sync buys nothing', async () => {
    fx = await createFixture({ manifest: manifest(langs), files: FILES });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    expect(first.flagged ?? []).toEqual([]);
    const f = fx;
    for (const lang of langs) {
      const out = outputs(lang);
      const android = f.read(out.android);
      expect(
        [...android.matchAll(/<item quantity="(\w+)">/g)].map((m) => m[1]),
        lang,
      ).toEqual(forms);
      for (const format of ['json', 'arb', 'yaml'] as const) {
        const files = /"files": "([^"]*)"|^files: "?(.*?)"?$/m.exec(f.read(out[format]))!;
        expect(categoriesOf(files[1] ?? files[2] ?? ''), `${lang} ${format}`).toEqual(forms);
      }
      const po = f.read(out.po);
      expect(po).toContain(`"Plural-Forms: nplurals=${nplurals};`);
      expect(po.match(/^msgstr\[\d\]/gm), lang).toHaveLength(nplurals);
      const dict = f.read(out.stringsdict);
      expect([...dict.matchAll(/<key>(zero|one|two|few|many|other)<\/key>/g)].map((m) => m[1])).toEqual(
        forms,
      );
    }
    // Nothing failed, so nothing is sent again: every value comes from the segment memory.
    const mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(
      fx.service
        .requests()
        .slice(mark)
        .filter((r) => r.path === '/v2/translate'),
    ).toEqual([]);
  });
});

describe('the checks still know a form the target has', () => {
  it('fails a Russian output that lost its few and many forms', async () => {
    fx = await createFixture({ manifest: manifest(['ru']), files: FILES });
    expect((await fx.sync()).failed).toEqual([]);
    const out = path.join(fx.dir, outputs('ru').android);
    const cut = fx.read(outputs('ru').android).replace(/ *<item quantity="(few|many)">[^<]*<\/item>\n/g, '');
    fs.writeFileSync(out, cut);
    const checked = await checkOutput({
      source: { path: path.join(fx.src, 'android/values/strings.xml'), format: 'xml' },
      output: { path: out, format: 'xml' },
      targetLang: 'ru',
      sourceLang: 'en',
      settings: DEFAULT_QA_SETTINGS,
    });
    expect(checked.failure).toEqual({
      check: 'lost-segments',
      reason: expect.stringMatching(/^the output has 4 of the source's 6 segments/),
    });
  });
});

describe('a string file refused by the output checks', () => {
  it('leaves no empty output folder behind', async () => {
    const phrasebook = path.join(fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'phrases-')), 'p.yaml');
    // A "translation" that is the source unchanged: the untranslated check, made to fail here.
    fs.writeFileSync(phrasebook, '"Open the file now":\n  de: Open the file now\n');
    fx = await createFixture({
      service: { phrasebookPath: phrasebook },
      manifest: {
        mappings: [
          {
            name: 'android',
            source: 'src/android/values',
            output: 'out/android/values-{lang_android}/{name}',
            method: 'segments',
            source_lang: 'en',
            targets: [{ lang: 'de' }],
            qa: { fail_on: ['untranslated'] },
          },
        ],
      },
      files: { 'android/values/strings.xml': ANDROID },
    });
    const run = await fx.sync();
    fs.rmSync(path.dirname(phrasebook), { recursive: true, force: true });
    expect(run.failed.map((x) => x.kind)).toEqual(['qa-failed']);
    expect(fx.exists('out/android/values-de')).toBe(false);
    expect(fx.exists('out')).toBe(false);
  });
});

describe('locsync sync and status', () => {
  it('deliver Japanese, Russian and Arabic plurals with exit 0', async () => {
    fx = await createFixture({
      manifest: manifest(['ja', 'ru', 'ar'], ['android', 'web']),
      files: { 'android/values/strings.xml': ANDROID, 'web/en.json': JSON_SRC },
    });
    const sync = await runCliOn(fx, 'sync');
    expect(sync.code, sync.stderr + sync.stdout).toBe(0);
    for (const lang of ['ja', 'ru', 'ar']) {
      expect(fx.exists(outputs(lang).android), lang).toBe(true);
      expect(fx.exists(outputs(lang).json), lang).toBe(true);
    }
    const status = await runCliOn(fx, 'status');
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).not.toMatch(/output checks/i);
  });
});
