// WebVTT subtitles (docs/webvtt.md) on the segment path: cue text lines translated with their markup
// as inline tags; header, identifiers, timings, settings, NOTE/STYLE/REGION blocks kept byte for
// byte; hostile translations stay cue text; an edited cue is the only text sent again.
// Fixtures: talk.vtt made by ffmpeg 5.1 from talk.srt (`ffmpeg -i talk.srt talk.vtt`, Debian 12);
// spec.vtt written by hand from the examples of the W3C WebVTT specification (regions, styles,
// voices, classes, karaoke timestamps, character references), which ffmpeg does not write.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDocument, segmentText, type Segment, type TranslationOf } from '../../src/documents/index.js';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { textRequests } from '../segments/helpers.js';
import { expectResavedUnchanged } from './resaved-source.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/webvtt');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-vtt-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const source = (name: string) => fs.readFile(path.join(FIXTURES, name), 'utf8');
const open = (file: string) => openDocument(file, { format: 'vtt' });

async function segmentsOf(file: string): Promise<Segment[]> {
  const out: Segment[] = [];
  for await (const s of (await open(file)).segments()) out.push(s);
  return out;
}

/** Each text piece upper-cased and bracketed; code pieces as they are. */
const shout: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : `«${p.text.toUpperCase()}»`));

let n = 0;
async function write(name: string, translationOf: TranslationOf): Promise<string> {
  const out = path.join(dir, `out-${n++}.vtt`);
  await (
    await open(path.join(FIXTURES, name))
  ).write(translationOf, { path: out, format: 'vtt' }, { targetLang: 'de' });
  return fs.readFile(out, 'utf8');
}

/** talk.vtt in German, text piece by text piece. */
const GERMAN: Record<string, string> = {
  'Welcome to the ': 'Willkommen zur Führung durch die ',
  'photo library': 'Fotobibliothek',
  ' tour.': '.',
  'Tap ': 'Tippen Sie auf ',
  Share: 'Teilen',
  ' to send a picture': ', um ein Bild',
  'to your friends & family.': 'an Ihre Freunde und Ihre Familie zu senden.',
  'Find out more at www.example.com': 'Mehr dazu finden Sie unter www.example.com',
  'See you next time!': 'Bis zum nächsten Mal!',
};

describe('WebVTT files', () => {
  it('cue text lines are segments, markup their code pieces, references read as characters', async () => {
    const segments = await segmentsOf(path.join(FIXTURES, 'spec.vtt'));
    expect(
      segments.map((s) => [s.where, s.pieces.map((p) => (p.code ? `[${p.text}]` : p.text)).join('')]),
    ).toEqual([
      ['cue 1', '[<v Fred>]Hi, my name is Fred'],
      ['cue 2', "[<v.loud Bill>]Hi, I'm Bill & this is [<c.loud>]my[</c>] dog"],
      ['cue 3', '[<00:00:16.500>]Never [<00:00:17.000>]drink [<00:00:17.500>][<i>]liquid[</i>] nitrogen.'],
      ['cue 4', '[<lang fr>]Merci[</lang>] <3 for watching'],
      ['cue 4', 'Tom & Jerry\u00A0say bye'],
    ]);
    expect((await segmentsOf(path.join(FIXTURES, 'talk.vtt'))).map(segmentText)).toEqual([
      'Welcome to the photo library tour.',
      'Tap Share to send a picture',
      'to your friends & family.',
      'Find out more at www.example.com',
      'See you next time!',
    ]);
  });

  it('identity is byte-identical; a translation changes the cue text and nothing else', async () => {
    for (const name of ['spec.vtt', 'talk.vtt']) {
      expect(await write(name, () => undefined), name).toBe(await source(name));
      expect(await write(name, (s) => s.pieces.map((p) => p.text)), name).toBe(await source(name));
    }
    expect(await write('spec.vtt', shout)).toBe(
      (await source('spec.vtt'))
        .replace('Hi, my name is Fred', '«HI, MY NAME IS FRED»')
        .replace(
          "Hi, I'm Bill &amp; this is <c.loud>my</c> dog",
          "«HI, I'M BILL &amp; THIS IS »<c.loud>«MY»</c>« DOG»",
        )
        .replace('>Never <', '>«NEVER »<')
        .replace('>drink <', '>«DRINK »<')
        .replace('<i>liquid</i> nitrogen.', '<i>«LIQUID»</i>« NITROGEN.»')
        .replace('<lang fr>Merci</lang> &lt;3 for watching', '<lang fr>«MERCI»</lang>« &lt;3 FOR WATCHING»')
        .replace('Tom &amp; Jerry&nbsp;say bye', '«TOM &amp; JERRY\u00A0SAY BYE»'),
    );
  });

  it('hostile translations (markup, timings, NOTE, blank lines, RTL) stay cue text', async () => {
    const hostile = '<b>x</b> & 00:01.000 --> 00:02.000\n\nNOTE not a note\n\u202Eمرحبا';
    const out = path.join(dir, 'hostile.vtt');
    const doc = await open(path.join(FIXTURES, 'spec.vtt'));
    await doc.write(
      (s) => s.pieces.map((p) => (p.code ? p.text : hostile)),
      { path: out, format: 'vtt' },
      { targetLang: 'ar' },
    );
    const before = await segmentsOf(path.join(FIXTURES, 'spec.vtt'));
    const after = await segmentsOf(out);
    // the same cues, each text piece the hostile text (its line break a line of the cue)
    expect(new Set(after.map((s) => s.where))).toEqual(new Set(before.map((s) => s.where)));
    const text = after.map(segmentText).join('\n');
    expect(text).toContain('<b>x</b> & 00:01.000 --> 00:02.000');
    expect(text).toContain('NOTE not a note');
    expect(text).toContain('\u202Eمرحبا');
    const written = await fs.readFile(out, 'utf8');
    expect(written).toContain('&lt;b&gt;x&lt;/b&gt; &amp; 00:01.000 --&gt; 00:02.000\nNOTE not a note\n');
    // timings, settings and the kept blocks as they were
    for (const kept of [
      'REGION\nid:fred\n',
      '::cue(.loud) {\n',
      '00:00:19.000 --> 00:00:21.000 line:0 align:center\n',
    ])
      expect(written).toContain(kept);
    // a line translated to nothing does not end its cue
    const emptied = await write('spec.vtt', (s) =>
      s.where === 'cue 4' && segmentText(s).startsWith('Merci')
        ? s.pieces.map((p) => (p.code ? p.text : ''))
        : undefined,
    );
    expect(emptied).toContain('<lang fr></lang>\nTom &amp; Jerry');
    const gone = await write('talk.vtt', (s) => (segmentText(s).startsWith('to your') ? [''] : undefined));
    expect(gone).toContain('00:04.000 --> 00:06.250\nTap <i>Share</i> to send a picture\n\n00:07.000');
  });

  it('the output checks pass on good output and catch a dropped URL', async () => {
    const check = (out: string) =>
      checkOutput({
        source: { path: path.join(FIXTURES, 'talk.vtt'), format: 'vtt' },
        output: { path: out, format: 'vtt' },
        targetLang: 'de',
        sourceLang: 'en',
        settings: DEFAULT_QA_SETTINGS,
      });
    const good = path.join(dir, 'good.vtt');
    const german: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : (GERMAN[p.text] ?? p.text)));
    await fs.writeFile(good, await write('talk.vtt', german));
    const passed = await check(good);
    expect(passed.outcome).toBe('pass');
    expect(passed.findings).toEqual([]);
    const bad = path.join(dir, 'bad.vtt');
    await fs.writeFile(bad, (await fs.readFile(good, 'utf8')).replace('www.example.com', 'der Webseite'));
    expect((await check(bad)).findings.filter((f) => f.check === 'urls')).toHaveLength(1);
  });

  it('a file that is not WebVTT is refused naming the line', async () => {
    const bad = path.join(dir, 'broken.vtt');
    await fs.writeFile(bad, 'WEBVTT\n\n00:01.000 --> 00:02.000\nHello\n\nJust a stray line\n');
    await expect(open(bad)).rejects.toThrow(/not a valid WebVTT \(\.vtt\) file: line 6 is neither/);
    await fs.writeFile(bad, 'WEBVTT\n\n00:01.000 -> 00:02.000\nHello\n');
    await expect(open(bad)).rejects.toThrow(/line 3 is neither/);
    await fs.writeFile(bad, 'WEBVTT\n\n1:00.000 --> 00:02.000\nHello\n');
    await expect(open(bad)).rejects.toThrow(/line 3 is not a cue timing/);
    await fs.writeFile(bad, '1\n00:00:01,000 --> 00:00:02,000\nHello\n');
    await expect(open(bad)).rejects.toThrow(/line 1 is not "WEBVTT"/);
  });
});

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('WebVTT in a sync', () => {
  it('segment path only; golden output; an edited cue line is the only text sent again', async () => {
    const spec = await source('spec.vtt');
    const mapping = (name: string, method?: string) => ({
      name,
      source: 'src',
      source_lang: 'en',
      output: `out/${name}/{lang}/{path}`,
      targets: [{ lang: 'de' }],
      ...(method ? { method } : {}),
    });
    fx = await createFixture({
      files: { 'spec.vtt': spec },
      manifest: { mappings: [mapping('seg', 'segments'), mapping('doc')] },
    });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    // the document service has no type for WebVTT: never uploaded, by segments under either method
    expect(first.unsupported).toEqual([]);
    expect(fx.uploads()).toEqual([]);
    expect(fx.read('out/seg/de/spec.vtt')).toBe(await source('spec.de.vtt'));
    expect(fx.read('out/doc/de/spec.vtt')).toBe(await source('spec.de.vtt'));

    fx.write('src/spec.vtt', spec.replace('Hi, my name is Fred', 'Hello, my name is Fred'));
    const mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(textRequests(fx, mark).map((r) => [r.texts, r.characters])).toEqual([
      [1, 'Hello, my name is Fred'.length],
    ]);
  });

  it('a file saved again with other line endings, spacing or NOTEs is re-saved, not translated again', async () => {
    const spec = await source('spec.vtt');
    // An editor on Windows: CRLF, a trailing space, settings aligned, a NOTE reworded.
    await expectResavedUnchanged(
      'spec.vtt',
      spec,
      spec
        .replace('Hi, my name is Fred', 'Hi, my name is Fred ')
        .replace('region:fred align:left\n<v Fred>', 'region:fred  align:left\n<v Fred>')
        .replace('NOTE karaoke: timestamps inside a cue', 'NOTE karaoke: checked again')
        .replaceAll('\n', '\r\n'),
    );
  });
});
