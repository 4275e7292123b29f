// String resource files through a real sync on the segment path, against the local service (both
// state backends: this file also runs in the "sync on postgres" project): first sync, then one key
// added, one changed and one removed in every file → only the new and changed values are sent
// (counted at the service's request log), the removed key is gone from the outputs, and every other
// byte of the output is what the first sync wrote.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDocument, segmentCharacters, taggedText, type Segment } from '../../src/documents/index.js';
import type { RequestLogEntry } from '../../src/local-service/types.js';
import { scanForStatus } from '../../src/report/status-data.js';
import { formatStringKeys } from '../../src/report/string-keys.js';
import { segmentConflicts } from '../../src/sync/reviewed-segments.js';
import { createFixture, type Fixture } from '../sync/fixture.js';

const JSON_SRC = `{
  "app": {
    "title": "Photo Library",
    "greeting": "Hello, {{name}}!",
    "delete": "Delete %s?"
  },
  "files": "{count, plural, one {# file} other {# files}}"
}
`;
const YAML_SRC = `# Rails
en:
  hello: Hello world  # home page
  errors:
    blank: "can't be blank"
    too_long: 'is too long (maximum is %{count} characters)'
`;
const PO_SRC = `msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#: main.c:3
msgid "Open"
msgstr ""

#, c-format
msgid "%d photo"
msgid_plural "%d photos"
msgstr[0] ""
msgstr[1] ""

msgid "Quit"
msgstr ""
`;
const ANDROID_SRC = `<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name" translatable="false">PhotoLib</string>
    <string name="welcome">Welcome, %1$s!</string>
    <string name="share">Tap <b>Share</b></string>
    <plurals name="photos">
        <item quantity="one">%d photo</item>
        <item quantity="other">%d photos</item>
    </plurals>
</resources>
`;
const STRINGS_SRC = `/* Title */
"title" = "Photo Library";

/* %@ is a name */
"shared" = "Shared with %@";
"done" = "Done";
`;
const STRINGSDICT_SRC = `<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0">
<dict>
	<key>photos_selected</key>
	<dict>
		<key>NSStringLocalizedFormatKey</key>
		<string>%#@photos@ selected</string>
		<key>photos</key>
		<dict>
			<key>NSStringFormatSpecTypeKey</key>
			<string>NSStringPluralRuleType</string>
			<key>NSStringFormatValueTypeKey</key>
			<string>d</string>
			<key>one</key>
			<string>%d photo</string>
			<key>other</key>
			<string>%d photos</string>
		</dict>
	</dict>
</dict>
</plist>
`;

/** One added, one changed, one removed key per file: [new source, added value, changed value]. */
const EDITS: Record<string, [from: string, to: string][]> = {
  'web/en.json': [
    ['"Hello, {{name}}!"', '"Hi there, {{name}}!"'],
    ['    "delete": "Delete %s?"\n', '    "albums": "Your albums"\n'],
    ['"title": "Photo Library",', '"title": "Photo Library",'],
  ],
  'rails/en.yml': [
    ['Hello world  #', 'Hello, world  #'],
    [
      "    too_long: 'is too long (maximum is %{count} characters)'\n",
      '    taken: "has already been taken"\n',
    ],
  ],
  'po/messages.pot': [
    ['msgid "Open"', 'msgid "Open file"'],
    ['msgid "Quit"\nmsgstr ""\n', 'msgid "Save %s"\nmsgstr ""\n'],
  ],
  'android/values/strings.xml': [
    ['Welcome, %1$s!', 'Welcome back, %1$s!'],
    [
      '    <string name="share">Tap <b>Share</b></string>\n',
      '    <string name="sort">Sort by date</string>\n',
    ],
  ],
  'ios/en.lproj/Localizable.strings': [
    ['"Photo Library"', '"Your Photos"'],
    ['"done" = "Done";\n', '"cancel" = "Cancel";\n'],
  ],
};

const SOURCES: Record<string, string> = {
  'web/en.json': JSON_SRC,
  'rails/en.yml': YAML_SRC,
  'po/messages.pot': PO_SRC,
  'android/values/strings.xml': ANDROID_SRC,
  'ios/en.lproj/Localizable.strings': STRINGS_SRC,
};

/** Each ecosystem's layout (`only` these mappings), through the output pattern's language placeholders. */
function manifest(
  targets: Array<{ lang: string }> = [{ lang: 'de' }, { lang: 'pt-br' }],
  only?: readonly string[],
): Record<string, unknown> {
  const common = { method: 'segments', source_lang: 'en', targets };
  const mappings: Array<Record<string, unknown> & { name: string }> = [
    {
      name: 'web',
      source: 'src/web',
      include: ['en.json'],
      output: 'src/web/{lang_bcp47}.json',
      ...common,
    },
    {
      name: 'rails',
      source: 'src/rails',
      include: ['en.yml'],
      output: 'src/rails/{lang_bcp47}.yml',
      ...common,
    },
    {
      name: 'po',
      source: 'src/po',
      include: ['messages.pot'],
      output: 'src/po/{lang_posix}.po',
      ...common,
    },
    {
      name: 'android',
      source: 'src/android/values',
      output: 'src/android/values-{lang_android}/{name}',
      ...common,
    },
    { name: 'ios', source: 'src/ios/en.lproj', output: 'src/ios/{lang_bcp47}.lproj/{name}', ...common },
  ];
  return { mappings: mappings.filter((m) => !only || only.includes(m.name)) };
}

const OUTPUTS = (lang: string, tag: string, posix: string, android: string): Record<string, string> => ({
  'web/en.json': `src/web/${tag}.json`,
  'rails/en.yml': `src/rails/${tag}.yml`,
  'po/messages.pot': `src/po/${posix}.po`,
  'android/values/strings.xml': `src/android/values-${android}/strings.xml`,
  'ios/en.lproj/Localizable.strings': `src/ios/${tag}.lproj/Localizable.strings`,
  lang,
});

const LANGS = [OUTPUTS('de', 'de', 'de', 'de'), OUTPUTS('pt-br', 'pt-BR', 'pt_BR', 'pt-rBR')];

function textRequests(fx: Fixture, since: number): Array<NonNullable<RequestLogEntry['text']>> {
  return fx.service
    .requests()
    .slice(since)
    .filter((r) => r.path === '/v2/translate' && r.status === 200 && r.text)
    .map((r) => r.text!);
}

async function segmentsOf(file: string): Promise<Segment[]> {
  const ext = path.extname(file).slice(1);
  const doc = await openDocument(file, { format: ext });
  const out: Segment[] = [];
  for await (const s of doc.segments()) out.push(s);
  return out;
}

/** What `status` lists as string keys missing or outdated (its scan, as `status --json` gives it). */
async function pendingKeys(f: Fixture) {
  const { state, close } = await f.open();
  try {
    return (await scanForStatus(await f.load(), state)).stringKeys;
  } finally {
    await close();
  }
}

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('string files on the segment path', () => {
  it('first sync, then a key added, one changed, one removed: only those values are sent', async () => {
    fx = await createFixture({ manifest: manifest(), files: SOURCES });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    const f = fx;
    for (const out of LANGS)
      for (const src of Object.keys(SOURCES)) expect(f.exists(out[src]!), out[src]).toBe(true);
    const de = LANGS[0]!;
    // placeholders and markup survive; the language is written where the format names it
    expect(f.read(de['web/en.json']!)).toMatch(/"greeting": ".*\{\{name\}\}.*",/);
    expect(f.read(de['web/en.json']!)).toMatch(/"files": "\{count, plural, one \{#.*\} other \{#.*\}\}"/);
    expect(f.read(de['rails/en.yml']!)).toMatch(/^# Rails\nde:\n {2}hello: .+ {2}# home page\n/);
    expect(f.read(de['rails/en.yml']!)).toContain('%{count}');
    expect(f.read(LANGS[1]!['po/messages.pot']!)).toContain('"Language: pt_BR\\n"');
    expect(f.read(de['android/values/strings.xml']!)).toContain(
      '<string name="app_name" translatable="false">PhotoLib</string>',
    );
    expect(f.read(de['android/values/strings.xml']!)).toMatch(/<string name="share">.*<b>.*<\/b><\/string>/);
    expect(f.read(de['ios/en.lproj/Localizable.strings']!)).toMatch(
      /^\/\* Title \*\/\n"title" = ".+";\n\n\/\* %@ is a name \*\/\n"shared" = ".*%@.*";\n/,
    );

    // A second run with nothing changed sends nothing; status counts no key missing.
    let mark = fx.mark();
    await fx.sync();
    expect(textRequests(fx, mark)).toEqual([]);
    expect(await pendingKeys(fx)).toEqual([]);

    // Edit every file: one key added, one changed, one removed.
    const before = Object.fromEntries(
      LANGS.flatMap((o) => Object.keys(SOURCES).map((s) => [o[s]!, f.read(o[s]!)])),
    );
    const expectedSent: string[] = [];
    let expectedCharacters = 0;
    for (const [src, edits] of Object.entries(EDITS)) {
      const old = await segmentsOf(path.join(fx.src, src));
      let text = SOURCES[src]!;
      for (const [from, to] of edits) text = text.replace(from, to);
      fx.write(path.join('src', src), text);
      const oldTagged = new Set(old.map(taggedText));
      for (const s of await segmentsOf(path.join(fx.src, src)))
        if (!oldTagged.has(taggedText(s))) {
          expectedSent.push(taggedText(s));
          expectedCharacters += segmentCharacters(s); // billed: the text, not the tags
        }
    }
    expect(expectedSent).toHaveLength(10); // an added and a changed value in each of five files
    // status counts what the next sync sends, per language: the CI gate of a string team
    expect(formatStringKeys(await pendingKeys(fx))).toEqual([
      'String keys missing or outdated: de 10 (5 files) · pt-br 10 (5 files)',
    ]);
    mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    const sent = textRequests(fx, mark);
    const perLang = (lang: string) => sent.filter((r) => r.target_lang.toLowerCase() === lang);
    for (const lang of ['de', 'pt-br']) {
      expect(
        perLang(lang).reduce((n, r) => n + r.texts, 0),
        lang,
      ).toBe(expectedSent.length);
      expect(
        perLang(lang).reduce((n, r) => n + r.characters, 0),
        lang,
      ).toBe(expectedCharacters);
    }

    // The removed keys are gone; every line the edit did not touch is as the first sync wrote it.
    const after = (rel: string) => f.read(rel);
    expect(after(de['web/en.json']!)).not.toContain('"delete"');
    expect(after(de['web/en.json']!)).toContain('"albums": "');
    expect(after(de['rails/en.yml']!)).not.toContain('too_long');
    expect(after(de['po/messages.pot']!)).not.toContain('msgid "Quit"');
    expect(after(de['android/values/strings.xml']!)).not.toContain('name="share"');
    expect(after(de['ios/en.lproj/Localizable.strings']!)).not.toContain('"done"');
    const touched =
      /delete|albums|greeting|hello|too_long|taken|Open|Quit|Save|welcome|share|sort|title|done|cancel/;
    for (const [rel, was] of Object.entries(before)) {
      const kept = (s: string) => s.split('\n').filter((l) => !touched.test(l) && !/^msgstr /.test(l));
      expect(kept(after(rel)), rel).toEqual(kept(was));
    }
  });
});

describe('a value a person corrected in a target file', () => {
  it('is kept when another key of the source changes, and only that key is sent', async () => {
    fx = await createFixture({ manifest: manifest(), files: { 'web/en.json': JSON_SRC } });
    expect((await fx.sync()).failed).toEqual([]);
    const out = 'src/web/de.json';
    const machine = fx.read(out);
    const title = /"title": "([^"]*)"/.exec(machine)![1]!;
    fx.write(out, machine.replace(title, 'Fotobibliothek'));
    fx.write('src/web/en.json', JSON_SRC.replace('"Delete %s?"', '"Remove %s?"'));
    const mark = fx.mark();
    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    const sent = textRequests(fx, mark).filter((r) => r.target_lang.toLowerCase() === 'de');
    expect(sent.reduce((n, r) => n + r.texts, 0)).toBe(1);
    const after = fx.read(out);
    expect(after).toContain('"title": "Fotobibliothek",');
    expect(after).not.toContain(/"delete": "([^"]*)"/.exec(machine)![1]!);
    expect(after.replace(/"delete": "[^"]*"/, '')).toBe(
      machine.replace(title, 'Fotobibliothek').replace(/"delete": "[^"]*"/, ''),
    );
  });

  it('keeps words moved around a placeholder when another key changes; a conflict shows its placeholders when its own source does', async () => {
    fx = await createFixture({
      manifest: manifest([{ lang: 'de' }], ['web']),
      files: { 'web/en.json': JSON_SRC },
    });
    expect((await fx.sync()).failed).toEqual([]);
    const out = 'src/web/de.json';
    fx.write(out, fx.read(out).replace(/"delete": "[^"]*"/, '"delete": "%s endgültig löschen?"'));
    fx.write('src/web/en.json', JSON_SRC.replace('"Photo Library"', '"Photos"'));
    expect((await fx.sync()).failed).toEqual([]);
    expect(fx.read(out)).toContain('"delete": "%s endgültig löschen?"');
    expect(fx.exists('src/web/de.locsync-new.json')).toBe(false);

    fx.write(
      'src/web/en.json',
      JSON_SRC.replace('"Photo Library"', '"Photos"').replace('"Delete %s?"', '"Remove %s?"'),
    );
    expect((await fx.sync()).failed).toEqual([]);
    // The person's wording stays in the output (taken in by the run before); the machine's is beside it.
    expect(fx.read(out)).toContain('"delete": "%s endgültig löschen?"');
    const machine = JSON.parse(fx.read('src/web/de.locsync-new.json')).app.delete;
    expect(machine).not.toContain('endgültig');
    const stateFolder = path.dirname((await fx.load()).statePath);
    expect(Object.fromEntries(segmentConflicts(stateFolder))).toEqual({
      [out]: [
        {
          where: 'key app.delete',
          source_before: 'Delete %s?',
          reviewed: '%s endgültig löschen?',
          source: 'Remove %s?',
          machine,
        },
      ],
    });
  });
});

describe('an .xml file that is not Android string resources', () => {
  it('is listed as unsupported with its reason, not read as strings; strings.xml beside it is translated', async () => {
    const feed =
      '<?xml version="1.0"?>\n<!-- news -->\n<rss version="2.0"><channel><title>News</title></channel></rss>\n';
    const xliff =
      '<?xml version="1.0"?>\n<xliff version="1.2"><file source-language="en" datatype="plaintext" original="a"><body>' +
      '<trans-unit id="1"><source>Hello</source></trans-unit></body></file></xliff>\n';
    const common = { method: 'segments', source_lang: 'en', targets: [{ lang: 'de' }] };
    fx = await createFixture({
      manifest: {
        mappings: [{ name: 'android', source: 'src/res', output: 'out/{lang}/{path}', ...common }],
      },
      files: { 'res/strings.xml': ANDROID_SRC, 'res/feed.xml': feed, 'res/units.xml': xliff },
    });
    const listed = (s: { unsupported: Array<{ file: string; message: string }> }) =>
      Object.fromEntries(s.unsupported.map((u) => [u.file, u.message]));
    const expected = {
      'feed.xml': expect.stringMatching(
        /^de: feed\.xml is not an Android string resource file: its root element is <rss>, not <resources>; .*exclude it/,
      ),
      'units.xml': expect.stringMatching(/^de: units\.xml .*<xliff>.*name it \.xlf or \.xliff/),
    };
    expect(listed(await fx.sync({ dryRun: true }))).toEqual(expected);
    const run = await fx.sync();
    expect(run.failed).toEqual([]);
    expect(listed(run)).toEqual(expected);
    expect(fx.exists('out/de/feed.xml')).toBe(false);
    expect(fx.exists('out/de/units.xml')).toBe(false);
    expect(fx.read('out/de/strings.xml')).toContain(
      '<string name="app_name" translatable="false">PhotoLib</string>',
    );
    // only the Android file's values were sent
    const sent = textRequests(fx, 0).reduce((n, r) => n + r.texts, 0);
    expect(sent).toBe((await segmentsOf(path.join(fx.src, 'res/strings.xml'))).length);
  });
});

describe('a corrected plural form the target language adds (en → pl: few)', () => {
  it('is kept when another key changes, and listed as a conflict when its source form changes', async () => {
    fx = await createFixture({
      manifest: manifest([{ lang: 'pl' }], ['android', 'po', 'ios']),
      files: {
        'android/values/strings.xml': ANDROID_SRC,
        'po/messages.pot': PO_SRC,
        'ios/en.lproj/Localizable.stringsdict': STRINGSDICT_SRC,
      },
    });
    const f = fx;
    expect((await f.sync()).failed).toEqual([]);
    const android = 'src/android/values-pl/strings.xml';
    const po = 'src/po/pl.po';
    const dict = 'src/ios/pl.lproj/Localizable.stringsdict';
    const DICT_SRC = 'src/ios/en.lproj/Localizable.stringsdict';
    const FEW_XML = '<item quantity="few">%d zdjęcia (poprawione)</item>';
    const FEW_PO = 'msgstr[1] "%d zdjęcia (poprawione)"';
    const FEW_DICT = '<key>few</key>\n\t\t\t<string>%d zdjęcia (poprawione)</string>';
    const FEW_DICT_RE = /<key>few<\/key>\n\t\t\t<string>[^<]+<\/string>/;
    expect(f.read(android)).toMatch(/<item quantity="few">[^<]+<\/item>/);
    expect(f.read(po)).toMatch(/^msgstr\[2\] /m);
    expect(f.read(dict)).toMatch(FEW_DICT_RE);
    // A reviewer words Polish `few` (msgstr[1]), which took the translation of English `other`.
    f.write(android, f.read(android).replace(/<item quantity="few">[^<]+<\/item>/, FEW_XML));
    f.write(po, f.read(po).replace(/^msgstr\[1\] .*$/m, FEW_PO));
    f.write(dict, f.read(dict).replace(FEW_DICT_RE, FEW_DICT));
    const reviewed = { android: f.read(android), po: f.read(po), dict: f.read(dict) };

    // Another key of each source changes: that key alone is sent, the corrections stay, nothing beside.
    f.write('src/android/values/strings.xml', ANDROID_SRC.replace('Welcome, %1$s!', 'Welcome back, %1$s!'));
    f.write('src/po/messages.pot', PO_SRC.replace('msgid "Open"', 'msgid "Open file"'));
    f.write(DICT_SRC, STRINGSDICT_SRC.replace('@ selected', '@ chosen'));
    let mark = f.mark();
    expect((await f.sync()).failed).toEqual([]);
    expect(textRequests(f, mark).reduce((n, r) => n + r.texts, 0)).toBe(3);
    expect(f.exists('src/android/values-pl/strings.locsync-new.xml')).toBe(false);
    expect(f.exists('src/po/pl.locsync-new.po')).toBe(false);
    expect(f.exists('src/ios/pl.lproj/Localizable.locsync-new.stringsdict')).toBe(false);
    expect(f.read(android)).toContain(FEW_XML);
    expect(f.read(po)).toContain(FEW_PO);
    expect(f.read(dict)).toContain(FEW_DICT);
    const changed = /welcome|msgid "Open|^msgstr "[^"]|%#@photos@/;
    const kept = (s: string) =>
      s.split('\n').filter((l, i, all) => !changed.test(l) && !changed.test(all[i - 1] ?? ''));
    expect(kept(f.read(android))).toEqual(kept(reviewed.android));
    expect(kept(f.read(po))).toEqual(kept(reviewed.po));
    expect(kept(f.read(dict))).toEqual(kept(reviewed.dict));
    const stateFolder = path.dirname((await f.load()).statePath);
    expect([...segmentConflicts(stateFolder)]).toEqual([]);

    // The same again: nothing is sent, the outputs stay as they are.
    mark = f.mark();
    await f.sync();
    expect(textRequests(f, mark)).toEqual([]);
    expect(f.read(android)).toContain(FEW_XML);
    expect(f.read(dict)).toContain(FEW_DICT);

    // The source form the correction came from changes: the new machine translation, and a conflict
    // (its texts as status shows them, placeholders in place).
    f.write(
      'src/android/values/strings.xml',
      ANDROID_SRC.replace('Welcome, %1$s!', 'Welcome back, %1$s!').replace('%d photos', '%d pictures'),
    );
    f.write(
      'src/po/messages.pot',
      PO_SRC.replace('msgid "Open"', 'msgid "Open file"').replace('"%d photos"', '"%d pictures"'),
    );
    f.write(DICT_SRC, STRINGSDICT_SRC.replace('@ selected', '@ chosen').replace('%d photos', '%d pictures'));
    expect((await f.sync()).failed).toEqual([]);
    expect(f.read(android)).not.toContain('poprawione');
    expect(f.read(po)).not.toContain('poprawione');
    expect(f.read(dict)).not.toContain('poprawione');
    expect(Object.fromEntries(segmentConflicts(stateFolder))).toEqual({
      [android]: [
        { where: 'key photos (few)', source_before: '%d photos', reviewed: '%d zdjęcia (poprawione)' },
      ],
      [po]: [{ where: 'key %d photo [1]', source_before: '%d photos', reviewed: '%d zdjęcia (poprawione)' }],
      [dict]: [
        {
          where: 'key photos_selected.photos (few)',
          source_before: '%d photos',
          reviewed: '%d zdjęcia (poprawione)',
        },
      ],
    });
  });
});

describe('an ICU plural message with branches the target language adds (en → pl: few, many)', () => {
  const files = (s: string) => /"files": "([^"]*)"/.exec(s)![1]!;
  const branch = (message: string, category: string) =>
    new RegExp(`${category} \\{([^}]*)\\}`).exec(message)?.[1];
  /** The web JSON translated to Polish: the output and what the first sync wrote. */
  const translatedToPolish = async () => {
    fx = await createFixture({
      manifest: manifest([{ lang: 'pl' }], ['web']),
      files: { 'web/en.json': JSON_SRC },
    });
    expect((await fx.sync()).failed).toEqual([]);
    return { f: fx, out: 'src/web/pl.json', machine: fx.read('src/web/pl.json') };
  };

  it('is not taken as a correction when another key is edited, so a change of its source is no conflict', async () => {
    const { f, out, machine } = await translatedToPolish();
    expect(branch(files(machine), 'few')).toBe(branch(files(machine), 'other'));
    f.write(out, machine.replace(/"title": "[^"]*"/, '"title": "Biblioteka"'));
    f.write('src/web/en.json', JSON_SRC.replace('"Delete %s?"', '"Remove %s?"'));
    expect((await f.sync()).failed).toEqual([]);
    expect(f.read(out)).toContain('"title": "Biblioteka"');
    expect(files(f.read(out))).toBe(files(machine));

    f.write(
      'src/web/en.json',
      JSON_SRC.replace('"Delete %s?"', '"Remove %s?"').replace('# files}', '# documents}'),
    );
    expect((await f.sync()).failed).toEqual([]);
    const now = files(f.read(out));
    expect(now).not.toBe(files(machine));
    expect(branch(now, 'few')).toBe(branch(now, 'other'));
    const stateFolder = path.dirname((await f.load()).statePath);
    expect([...segmentConflicts(stateFolder)]).toEqual([]);
  });

  it('a correction of a source branch is kept, the added branches as written; one of an added branch goes beside', async () => {
    const { f, out, machine } = await translatedToPolish();
    const corrected = files(machine).replace(/one \{[^}]*\}/, 'one {# plik}');
    f.write(out, machine.replace(files(machine), corrected));
    f.write('src/web/en.json', JSON_SRC.replace('"Delete %s?"', '"Remove %s?"'));
    expect((await f.sync()).failed).toEqual([]);
    expect(files(f.read(out))).toBe(corrected);
    expect(f.exists('src/web/pl.locsync-new.json')).toBe(false);
    const stateFolder = path.dirname((await f.load()).statePath);
    expect([...segmentConflicts(stateFolder)]).toEqual([]);

    // `few` has no place of its own in the source's message: the new translation goes beside.
    const few = corrected.replace(/few \{[^}]*\}/, 'few {# pliki}');
    f.write(out, f.read(out).replace(corrected, few));
    f.write('src/web/en.json', JSON_SRC.replace('"Delete %s?"', '"Remove it, %s?"'));
    expect((await f.sync()).failed).toEqual([]);
    expect(files(f.read(out))).toBe(few);
    expect(f.exists('src/web/pl.locsync-new.json')).toBe(true);
  });
});
