// .NET .resx files (docs/strings/resx.md): <data><value> translated, <comment>, the resheader and
// schema block, xml:space, file references and designer entries kept byte for byte; hostile
// translations stay data; {0} is protected and checked; a sync of an edit sends only that value.
// The fixture Resources.resx has the header block of Visual Studio's and the .NET SDK's resx
// template (ResXResourceWriter's), written by hand: Debian has no .NET SDK. mono/Strings.resx is
// written by Mono's ResXResourceWriter (Debian 12's mono-devel, mono/make-resx.cs): its own layout
// (a byte order mark, the resheaders on one line, `<value />`, no xml:space); where mono is
// installed, Mono's ResXResourceReader reads locsync's outputs back (mono/read-resx.cs).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, type TranslationOf } from '../../src/documents/index.js';
import { PlaceholderCheckError, type StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { assertWellFormed } from '../../src/documents/formats/xml.js';
import { segmentsOf, writerIn } from './string-file.js';
import { checkAgainst, findingsAbout, FIXTURES, syncGoldenThenEdit } from './format-sync.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-resx-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const SOURCE = path.join(FIXTURES, 'Resources.resx');
const open = async (file = SOURCE) => (await openDocument(file, { format: 'resx' })) as StringDocument;
const write = writerIn(dir);
const source = () => fs.readFile(SOURCE, 'utf8');

describe('.resx files', () => {
  it('string <data> values are read by name; identity is byte-identical; the golden shout', async () => {
    const doc = await open();
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key AppTitle',
      'key Greeting',
      'key ShareHint',
      'key Footer',
    ]);
    // a format string with no words, a file reference and a designer entry are not text
    expect([...doc.values().keys()]).toEqual(['AppTitle', 'Greeting', 'ShareHint', 'Footer', 'DateFormat']);
    const src = await source();
    expect(await write(doc, 'de', () => undefined)).toBe(src);
    expect(await write(doc, 'de')).toBe(
      src
        .replace('>Photo Library<', '>«PHOTO LIBRARY»<')
        .replace('>Hello, {0}! You have {1} new photos.<', '>«HELLO, »{0}«! YOU HAVE »{1}« NEW PHOTOS.»<')
        .replace(
          'Tap &lt;b&gt;Share&lt;/b&gt; to send &amp; keep "originals"',
          '«TAP »&lt;b&gt;«SHARE»&lt;/b&gt;« TO SEND &amp; KEEP "ORIGINALS"»',
        )
        .replace('Two lines:\nthe second one', '«TWO LINES:\nTHE SECOND ONE»'),
    );
  });

  it('hostile translations (XML syntax, entities, CDATA ends, quotes, newlines, RTL) stay data', async () => {
    // (a made-up tag such as </value> is refused by the placeholder check: markup is code)
    const hostile = `1 < 2 && 3 > 0 ]]> <!-- "q" 'a' --> </value\n\u202Eمرحبا`;
    const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
    const out = path.join(dir, 'hostile.resx');
    await (await open()).write(evil, { path: out, format: 'resx' }, { targetLang: 'ar' });
    const written = await fs.readFile(out, 'utf8');
    assertWellFormed(written, 'the output');
    const back = await open(out);
    expect(back.values().get('AppTitle')).toBe(hostile);
    expect([...back.values().keys()]).toEqual([...(await open()).values().keys()]);
    expect(written).toContain("<comment>{0} is the user's name, {1} a number</comment>");
  });

  it('the output checks pass on good output and catch a dropped {0}', async () => {
    const good = path.join(dir, 'good.resx');
    await fs.writeFile(good, await write(await open(), 'de'));
    const passed = await checkAgainst('Resources.resx', good, 'resx');
    expect(passed.outcome).not.toBe('failed');
    expect(findingsAbout(passed, '{0}')).toEqual([]);
    const bad = path.join(dir, 'bad.resx');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace('»{0}«', ''));
    expect(findingsAbout(await checkAgainst('Resources.resx', bad, 'resx'), '{0}')).toHaveLength(1);
    const madeUp: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `${p.text} {2}`));
    const out = path.join(dir, 'made-up.resx');
    await expect(
      (await open()).write(madeUp, { path: out, format: 'resx' }, { targetLang: 'de' }),
    ).rejects.toThrow(PlaceholderCheckError);
    await expect(fs.access(out)).rejects.toThrow();
  });

  it('a broken file, or XML that is not a resource file, is refused naming its format', async () => {
    const broken = path.join(dir, 'broken.resx');
    await fs.writeFile(broken, '<root><data name="a"><value>b</data></root>');
    await expect(open(broken)).rejects.toThrow(/the \.resx file is not well-formed XML/);
    const other = path.join(dir, 'other.resx');
    await fs.writeFile(other, '<resources><string name="a">b</string></resources>');
    await expect(open(other)).rejects.toThrow(/not a \.NET resource file: its root element is <resources>/);
  });
});

describe('a .resx file on the segment path', () => {
  it('the local service’s German is the golden file; an edit sends only the changed value', async () => {
    await syncGoldenThenEdit({
      name: 'Resources.resx',
      output: 'src/ui/Resources.{lang_bcp47}.resx',
      golden: 'Resources.de.resx',
      edit: (src) => src.replace('>Photo Library<', '>Photo Album<'),
      edited: 1,
    });
  });
});

const MONO = path.join(FIXTURES, 'mono/Strings.resx');
const HAS_MONO = existsSync('/usr/bin/mcs') && existsSync('/usr/bin/mono');

/** The string values of a .resx file as Mono's ResXResourceReader reads them. */
async function monoValues(file: string): Promise<Map<string, string>> {
  const exe = path.join(dir, 'read-resx.exe');
  if (!existsSync(exe))
    execFileSync('mcs', [
      '-r:System.Windows.Forms.dll',
      `-out:${exe}`,
      path.join(FIXTURES, 'mono/read-resx.cs'),
    ]);
  const unescape = (v: string) =>
    v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  const lines = execFileSync('mono', [exe, file], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return new Map(lines.map((l) => l.split('\t').map(unescape) as [string, string]));
}

describe('a .resx file Mono’s ResXResourceWriter wrote', () => {
  it('its values are segments; identity is byte-identical; the local service’s German is golden', async () => {
    const doc = await open(MONO);
    expect((await segmentsOf(doc)).map((s) => s.where)).toEqual([
      'key AppTitle',
      'key Greeting',
      'key ShareHint',
      'key TwoLines',
      'key Padded',
    ]);
    expect(await write(doc, 'de', () => undefined)).toBe(await fs.readFile(MONO, 'utf8'));
    await syncGoldenThenEdit({
      name: 'Strings.resx',
      from: 'mono/Strings.resx',
      output: 'src/ui/Strings.{lang_bcp47}.resx',
      golden: 'mono/Strings.de.resx',
      edit: (src) => src.replace('>Photo Library<', '>Photo Album<'),
      edited: 1,
    });
  });

  it.skipIf(!HAS_MONO)(
    'Mono’s ResXResourceReader reads the German and hostile values as locsync wrote them',
    async () => {
      expect(await monoValues(path.join(FIXTURES, 'mono/Strings.de.resx'))).toEqual(
        new Map([...(await open(path.join(FIXTURES, 'mono/Strings.de.resx'))).values(), ['Empty', '']]),
      );
      const hostile = `1 < 2 && 3 > 0 ]]> <!-- "q" 'a' --> </value\n\u202Eمرحبا  `;
      const evil: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : hostile));
      const out = path.join(dir, 'hostile-mono.resx');
      await (await open(MONO)).write(evil, { path: out, format: 'resx' }, { targetLang: 'ar' });
      const mono = await monoValues(out);
      expect(mono.get('AppTitle')).toBe(hostile);
      expect(mono.get('Greeting')).toBe(`${hostile}{0}${hostile}{1}${hostile}`);
      expect(mono).toEqual(new Map([...(await open(out)).values(), ['Empty', '']]));
    },
  );
});
