// Readers and writers of string resource files: each real-world sample read into keyed segments,
// written back unchanged byte for byte, translated in place with placeholders and markup intact,
// plural forms made the target language's.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, type Segment, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { segmentsOf, shout, writerIn } from './string-file.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-strings-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

async function open(name: string, format = path.extname(name).slice(1)): Promise<StringDocument> {
  return (await openDocument(path.join(FIXTURES, name), { format })) as StringDocument;
}

const write = writerIn(dir);

const source = (name: string) => fs.readFile(path.join(FIXTURES, name), 'utf8');

/** Lines of `out` that differ from the source's, as [source line, output line]. */
function changedLines(src: string, out: string): Array<[string, string]> {
  const a = src.split('\n');
  const b = out.split('\n');
  expect(b.length).toBe(a.length);
  return a.flatMap((l, i) => (l === b[i] ? [] : [[l, b[i] as string] as [string, string]]));
}

/**
 * The samples read into their keys (in file order, as segments name them) that are written back
 * byte for byte when nothing is translated.
 */
const KEYS: Record<string, string[]> = {
  'en.json': [
    'key app.title',
    'key app.greeting',
    'key app.menu.open',
    'key app.menu.save_as',
    'key files',
    'key steps[0]',
    'key steps[1]',
    'key html',
  ],
  'strings.xml': [
    'key welcome',
    'key dont_panic',
    'key quoted',
    'key styled',
    'key sort_orders[0]',
    'key sort_orders[1]',
    'key photos_selected (one)',
    'key photos_selected (other)',
  ],
  'Localizable.strings': ['key main.title', 'key shared.with', 'key done', 'key quote'],
  'Localizable.stringsdict': [
    'key photos_selected',
    'key photos_selected.photos (one)',
    'key photos_selected.photos (other)',
  ],
  'messages.properties': ['key app.title', 'key welcome', 'key long.text', 'key menu.open', 'key price'],
};

/** Opens a sample of KEYS: its keys are the table's, and an untranslated write gives its bytes back. */
async function readsKeysAndWritesBack(name: string): Promise<{ doc: StringDocument; segs: Segment[] }> {
  const doc = await open(name);
  const segs = await segmentsOf(doc);
  expect(segs.map((s) => s.where)).toEqual(KEYS[name]);
  expect(await write(doc, 'de', () => undefined)).toBe(await source(name));
  return { doc, segs };
}

describe('string resource files', () => {
  it('nested JSON: keys with paths and array indexes, identity round trip, values in place', async () => {
    const { doc, segs } = await readsKeysAndWritesBack('en.json');
    expect(segs.every((s) => s.role === 'string')).toBe(true);
    const out = await write(doc, 'de');
    expect(changedLines(await source('en.json'), out)).toEqual([
      ['    "title": "Photo Library",', '    "title": "«PHOTO LIBRARY»",'],
      ['    "greeting": "Hello, {{name}}!",', '    "greeting": "«HELLO, »{{name}}«!»",'],
      ['      "open": "Open…",', '      "open": "«OPEN…»",'],
      ['      "save_as": "Save <b>as</b> %s",', '      "save_as": "«SAVE »<b>«AS»</b>« »%s",'],
      [
        '  "files": "{count, plural, =0 {No files} one {# file in {folder}} other {# files in {folder}}}",',
        '  "files": "{count, plural, =0 {«NO FILES»} one {#« FILE IN »{folder}} other {#« FILES IN »{folder}}}",',
      ],
      ['    "Choose a photo",', '    "«CHOOSE A PHOTO»",'],
      ['    "Tap \\"Share\\"",', '    "«TAP \\"SHARE\\"»",'],
      [
        '  "html": "Read the <a href=\\"/terms\\">terms</a>&nbsp;first."',
        '  "html": "«READ THE »<a href=\\"/terms\\">«TERMS»</a>&nbsp;«FIRST.»"',
      ],
    ]);
    expect(JSON.parse(out).app.menu.count).toBe(3);
  });

  it('ICU plural branches become the target language’s (Russian: one, few, many, other)', async () => {
    const out = JSON.parse(await write(await open('en.json'), 'ru')) as { files: string };
    expect(out.files).toBe(
      '{count, plural, =0 {«NO FILES»} one {#« FILE IN »{folder}} few {#« FILES IN »{folder}} many {#« FILES IN »{folder}} other {#« FILES IN »{folder}}}',
    );
    const ja = JSON.parse(await write(await open('en.json'), 'ja')) as { files: string };
    expect(ja.files).toBe('{count, plural, =0 {«NO FILES»} other {#« FILES IN »{folder}}}');
  });

  it('ARB: @metadata untouched, @@locale set, ICU placeholders kept', async () => {
    const doc = await open('app_en.arb');
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual(['key appTitle', 'key photoCount']);
    const out = await write(doc, 'pt-br');
    const lines = changedLines(await source('app_en.arb'), out);
    expect(lines.map(([, b]) => b)).toEqual([
      '  "@@locale": "pt_BR",',
      '  "appTitle": "«PHOTO LIBRARY»",',
      '  "photoCount": "{count, plural, =0 {«NO PHOTOS»} =1 {«ONE PHOTO»} one {{count}« PHOTOS»} many {{count}« PHOTOS»} other {{count}« PHOTOS»}}",',
    ]);
  });

  it('Rails YAML: root key becomes the target’s, quoting and block styles kept, comments and anchors stay', async () => {
    const doc = await open('en.yml', 'yml');
    const segs = await segmentsOf(doc);
    expect(segs.map((s) => s.where)).toContain('key activerecord.errors.messages.too_long');
    expect(segs.map((s) => s.where)).toContain('key date.day_names[2]');
    // a value of placeholders and punctuation only is not sent
    expect(segs.map((s) => s.where)).not.toContain('key date.formats.default');
    expect(await write(doc, 'en', () => undefined)).toBe(await source('en.yml'));
    const german: TranslationOf = (s) =>
      s.pieces.map((p) =>
        p.code
          ? p.text
          : ({
              "can't be blank": 'muss ausgefüllt werden',
              'is too long (maximum is ': 'ist zu lang (höchstens ',
              ' characters)': ' Zeichen)',
              'Hello world': 'Hallo Welt',
              yes: 'ja',
              'Welcome to the library.\nSign in to continue.\n':
                'Willkommen in der Bibliothek.\nMelden Sie sich an.\n',
              'Photos you shared with others.': 'Fotos, die Sie geteilt haben.',
              Sunday: 'Sonntag',
              OK: 'OK',
              Cancel: 'Abbrechen',
            }[p.text] ?? p.text),
      );
    const out = await write(doc, 'de', german);
    expect(out).toBe(
      (await source('en.yml'))
        .replace('en:', 'de:')
        .replace(`"can't be blank"`, '"muss ausgefüllt werden"')
        .replace(
          "'is too long (maximum is %{count} characters)'",
          "'ist zu lang (höchstens %{count} Zeichen)'",
        )
        .replace('Hello world  #', 'Hallo Welt  #')
        .replace('"yes"', '"ja"')
        .replace(
          'Welcome to the library.\n    Sign in to continue.',
          'Willkommen in der Bibliothek.\n    Melden Sie sich an.',
        )
        .replace('Photos you shared\n    with others.', 'Fotos, die Sie geteilt haben.')
        .replace('[Sunday,', '[Sonntag,')
        .replace('cancel: Cancel', 'cancel: Abbrechen'),
    );
    // a plain value that YAML 1.1 (Ruby) would read as a boolean is quoted
    const yes = await write(doc, 'de', (s) => s.pieces.map((p) => (p.code ? p.text : 'yes')));
    expect(yes).toContain('  hello: "yes"  # greeting');
    expect(await write(doc, 'pt-br', () => undefined)).toMatch(/^# Rails locale file\npt-BR:\n/);
  });

  it('gettext POT → PO: msgctxt, plurals per the target language, header, wrapped msgids untouched', async () => {
    const doc = await open('messages.pot');
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key Open',
      'key menu | Open',
      'key %d photo selected',
      'key %d photo selected (plural)',
      'key A long message that gettext wrapped over two lines.\nAnd a second line.',
      'key Hello %(name)s',
    ]);
    expect(doc.outputFormats).toEqual(['po']);
    const out = await write(doc, 'ru');
    expect(out).toContain('"Language: ru\\n"\n');
    expect(out).toContain('"Content-Type: text/plain; charset=UTF-8\\n"\n');
    expect(out).toContain(
      '"Plural-Forms: nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"\n',
    );
    expect(out).not.toContain('#, fuzzy');
    expect(out).toContain('msgctxt "menu"\nmsgid "Open"\nmsgstr "«OPEN»"\n');
    expect(out).toContain(
      '#, c-format\nmsgid "%d photo selected"\nmsgid_plural "%d photos selected"\nmsgstr[0] "%d« PHOTO SELECTED»"\nmsgstr[1] "%d« PHOTOS SELECTED»"\nmsgstr[2] "%d« PHOTOS SELECTED»"\n',
    );
    expect(out).toContain(
      'msgid ""\n"A long message that gettext wrapped "\n"over two lines.\\n"\n"And a second line."\nmsgstr ""\n"«A LONG MESSAGE THAT GETTEXT WRAPPED OVER TWO LINES.\\n"\n"AND A SECOND LINE.»"\n',
    );
    expect(out).toContain('msgid "Hello %(name)s"\nmsgstr "«HELLO »%(name)s"\n');
    // Japanese has one form: msgstr[0] takes the plural's translation
    expect(await write(doc, 'ja')).toContain('msgstr[0] "%d« PHOTOS SELECTED»"\n\n');
    // the written PO reads back with its translations on the target side
    const po = path.join(dir, 'de.po');
    await doc.write(shout, { path: po, format: 'po' }, { targetLang: 'de' });
    const back = (await openDocument(po, { format: 'po', side: 'target' })) as StringDocument;
    expect(back.values().get('menu | Open')).toBe('«OPEN»');
    expect(back.values().get('%d photo selected (plural)')).toBe('%d« PHOTOS SELECTED»');
  });

  it('Android strings.xml: translatable="false" left out, escapes and markup kept, arrays and plurals', async () => {
    const { doc, segs } = await readsKeysAndWritesBack('strings.xml');
    expect(segs[1]?.pieces).toEqual([{ text: "Don't panic & carry on" }]);
    const lines = changedLines(await source('strings.xml'), await write(doc, 'de'));
    expect(lines.map(([, b]) => b.trim())).toEqual([
      '<string name="welcome">«WELCOME, »<xliff:g id="user" example="Sam">%1$s</xliff:g>«!»</string>',
      '<string name="dont_panic">«DON\\\'T PANIC &amp; CARRY ON»</string>',
      '<string name="quoted">"«KEEP  THESE  SPACES»"</string>',
      '<string name="styled">«TAP »<b>«SHARE»</b>« TO SEND\\nYOUR PHOTO.»</string>',
      '<item>«BY DATE»</item>',
      '<item>«BY NAME»</item>',
      '<item quantity="one">%d« PHOTO SELECTED»</item>',
      '<item quantity="other">%d« PHOTOS SELECTED»</item>',
    ]);
    const ru = await write(doc, 'ru');
    expect(ru).toContain(
      [
        '    <plurals name="photos_selected">',
        '        <item quantity="one">%d« PHOTO SELECTED»</item>',
        '        <item quantity="few">%d« PHOTOS SELECTED»</item>',
        '        <item quantity="many">%d« PHOTOS SELECTED»</item>',
        '        <item quantity="other">%d« PHOTOS SELECTED»</item>',
        '    </plurals>',
      ].join('\n'),
    );
    expect(ru).toContain('<string name="app_name" translatable="false">PhotoLib</string>');
  });

  it('iOS .strings: comments and bare keys kept; .stringsdict plural forms per language', async () => {
    const { doc } = await readsKeysAndWritesBack('Localizable.strings');
    expect(
      changedLines(await source('Localizable.strings'), await write(doc, 'de')).map(([, b]) => b),
    ).toEqual([
      '"main.title" = "«PHOTO LIBRARY»";',
      '"shared.with" = "«SHARED WITH »%@";',
      'done = "«DONE»";',
      '"quote" = "«SAY \\"CHEESE\\"\\n»";',
    ]);

    const { doc: dict } = await readsKeysAndWritesBack('Localizable.stringsdict');
    const ja = await write(dict, 'ja');
    expect(ja).toContain(
      '\t\t\t<string>d</string>\n\t\t\t<key>other</key>\n\t\t\t<string>%d« PHOTOS»</string>\n\t\t</dict>',
    );
    expect(ja).not.toContain('<key>one</key>');
    expect(ja).toContain('<string>%#@photos@« SELECTED»</string>');
  });

  it('Java .properties: separators, comments and \\u escapes kept; continuation lines joined', async () => {
    const { doc } = await readsKeysAndWritesBack('messages.properties');
    const out = await write(doc, 'fr', (s) =>
      s.pieces.map((p) => (p.code ? p.text : p.text.replace('Photo', 'Photothèque'))),
    );
    expect(out).toBe(
      (await source('messages.properties')).replace('= Photo Library', '= Phototh\\u00e8que Library'),
    );
    const joined = await write(doc, 'fr', (s) =>
      s.pieces.map((p) => (p.code ? p.text : p.text.toUpperCase())),
    );
    expect(joined).toContain(
      'long.text = THIS SENTENCE IS LONG AND CONTINUES ON THE NEXT LINE.\nmenu.open\tOPEN\n',
    );
  });

  it('never writes a value whose placeholders changed', async () => {
    const doc = await open('en.json');
    const out = path.join(dir, 'bad.json');
    const lossy: TranslationOf = (s) =>
      s.pieces.map((p) => (p.code ? p.text : p.text.replace('Photo', '%s Photo')));
    await expect(doc.write(lossy, { path: out, format: 'json' }, { targetLang: 'de' })).rejects.toThrow(
      PlaceholderCheckError,
    );
    await expect(doc.write(lossy, { path: out, format: 'json' }, { targetLang: 'de' })).rejects.toThrow(
      'key app.title: unexpected %s',
    );
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('a file that is not what its name says is refused with the file’s problem', async () => {
    const bad = path.join(dir, 'broken.json');
    await fs.writeFile(bad, '{\n  "a": "b",\n  "c": \n}\n');
    await expect(openDocument(bad, { format: 'json' })).rejects.toThrow(/the \.json file is not valid JSON/);
    const notAndroid = path.join(dir, 'layout.xml');
    await fs.writeFile(notAndroid, '<LinearLayout/>\n');
    await expect(openDocument(notAndroid, { format: 'xml' })).rejects.toThrow(
      /not an Android string resource file/,
    );
    const badYaml = path.join(dir, 'bad.yml');
    await fs.writeFile(badYaml, 'en:\n  a: "x\n  b: y\n');
    await expect(openDocument(badYaml, { format: 'yml' })).rejects.toThrow(/not valid YAML \(line \d\)/);
  });
});
