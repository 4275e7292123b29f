import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentDigest } from '../../src/documents/digest/index.js';
import { describeChanges } from '../../src/documents/digest/compare.js';
import { makeZip, readZip } from '../formats/zip-helpers.js';

// The content digest per format: what is content (a change) and what is not (docs/content-digest.md).

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-digest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const RESAVE = path.resolve(__dirname, '../sync/resave');

let n = 0;
async function digestOf(ext: string, content: string | Buffer) {
  const file = path.join(dir, `f${++n}.${ext}`);
  fs.writeFileSync(file, content);
  const d = await contentDigest(file, ext);
  if (!d) throw new Error(`no digest for .${ext}`);
  return d;
}

describe('content digest', () => {
  it('markdown: plan --why names the line of a changed block, front matter counted', async () => {
    const doc = (third: string) =>
      `---\ntitle: Setup\n---\n\n# Installing\n\nFirst paragraph.\n\n| a | b |\n|---|---|\n| x | y |\n\n${third}\n`;
    const before = await digestOf('md', doc('Third paragraph.'));
    const after = await digestOf('md', doc('Third paragraph, edited.'));
    expect(describeChanges(before.parts, after.parts)).toEqual([
      'markdown: line 13 (paragraph 7): text changed',
    ]);
    // The same block moved down by a line of layout is no change.
    const moved = await digestOf('md', doc('Third paragraph.').replace('# Installing\n', '# Installing\n\n'));
    expect(moved.digest).toBe(before.digest);
  });

  it('html: a comment, the encoding and a BOM are not content; text, attributes and tags are', async () => {
    const page = (comment: string, body = '<p class="a">Hello <b>world</b></p>') =>
      `<!doctype html><html><head><!-- ${comment} --></head><body>${body}</body></html>`;
    const base = (await digestOf('html', page('v1'))).digest;
    expect((await digestOf('html', page('built again, v2'))).digest).toBe(base);
    expect((await digestOf('html', Buffer.from('\ufeff' + page('v1')))).digest).toBe(base);
    expect((await digestOf('html', page('v1', '<p class="a">Hello <b>there</b></p>'))).digest).not.toBe(base);
    expect((await digestOf('html', page('v1', '<p class="b">Hello <b>world</b></p>'))).digest).not.toBe(base);
    expect((await digestOf('html', page('v1', '<p class="a">Hello <i>world</i></p>'))).digest).not.toBe(base);
  });

  it('txt and srt: line endings are not content; a word is', async () => {
    const txt = (await digestOf('txt', 'One line.\nTwo lines.\n')).digest;
    expect((await digestOf('txt', 'One line.\r\nTwo lines.\r\n')).digest).toBe(txt);
    expect((await digestOf('txt', 'One line.\nTwo words.\n')).digest).not.toBe(txt);
    const cue = (text: string, eol = '\n') =>
      ['1', '00:00:01,000 --> 00:00:02,000', text, '', '2', '00:00:03,000 --> 00:00:04,000', 'Bye.', ''].join(
        eol,
      );
    const srt = (await digestOf('srt', cue('Hello.'))).digest;
    expect((await digestOf('srt', cue('Hello.', '\r\n'))).digest).toBe(srt);
    expect((await digestOf('srt', cue('Hi.'))).digest).not.toBe(srt);
  });

  it('xliff: comments and layout whitespace are not content; a source or target is', async () => {
    const x = (comment: string, target = 'Hallo') =>
      `<?xml version="1.0"?>\n<xliff version="1.2"><!-- ${comment} -->\n  <file source-language="en" target-language="de"><body>\n` +
      `    <trans-unit id="1"><source>Hello</source><target>${target}</target></trans-unit></body></file></xliff>`;
    const base = (await digestOf('xliff', x('exported 1'))).digest;
    expect((await digestOf('xliff', x('exported 2'))).digest).toBe(base);
    expect((await digestOf('xliff', x('exported 1', 'Servus'))).digest).not.toBe(base);
  });

  it('webvtt: line endings, trailing spaces, spacing of settings, NOTEs and references are not content', async () => {
    const spec = fs.readFileSync(path.resolve(__dirname, 'fixtures/webvtt/spec.vtt'), 'utf8');
    const base = await digestOf('vtt', spec);
    const same = [
      spec.replaceAll('\n', '\r\n'),
      '\ufeff' + spec,
      spec.replaceAll('\n\n', '\n\n\n'),
      spec.replace('Hi, my name is Fred', 'Hi, my name is Fred  ').replace('nitrogen.', 'nitrogen.\t'),
      spec
        .replace('Tom &amp; Jerry', 'Tom &#38; Jerry')
        .replace('region:fred align:left\n<v Fred>', 'region:fred   align:left\n<v Fred>'),
      spec.replace('NOTE karaoke: timestamps inside a cue', 'NOTE karaoke timestamps, checked 2026-12-02'),
    ];
    for (const text of same) expect((await digestOf('vtt', text)).digest).toBe(base.digest);
    const edits: Array<[string, string, string]> = [
      ['Hi, my name is Fred', 'Hi, my name is Ted', 'subtitles: line 20 (cue 1): text changed'],
      [
        '00:02.500 --> 00:22.500',
        '00:02.500 --> 00:23.500',
        'subtitles: line 24 (cue 2): formatting changed',
      ],
      ['line:0 align:center', 'line:0 align:start', 'subtitles: line 32 (cue 4): formatting changed'],
      ['<c.loud>my</c>', '<i>my</i>', 'subtitles: line 24 (cue 2): formatting changed'],
      ['&nbsp;say', ' say', 'subtitles: line 32 (cue 4): text changed'],
      ['color: yellow;', 'color: red;', 'subtitles: line 7 (style block 1): formatting changed'],
      ['width:40%', 'width:50%', 'subtitles: line 12 (region block 1): formatting changed'],
      ['\nintro\n', '\nopening\n', 'subtitles: line 20 (cue 1): formatting changed'],
    ];
    for (const [from, to, why] of edits) {
      const after = await digestOf('vtt', spec.replace(from, to));
      expect(after.digest, to).not.toBe(base.digest);
      expect(describeChanges(base.parts, after.parts)).toEqual([why]);
    }
  });

  it('mdx: layout, line endings and {/* comments */} are not content; JSX, expressions and imports are', async () => {
    const guide = fs.readFileSync(path.resolve(__dirname, 'fixtures/mdx/guide.mdx'), 'utf8');
    const base = await digestOf('mdx', guide);
    const same = [
      guide.replaceAll('\n', '\r\n'),
      guide.replace('Tap **Share** to send', 'Tap __Share__  to\nsend'),
      guide.replaceAll('  - ', '  * '),
      guide.replace('{/* A comment for writers: never translated */}', '{/* reviewed 2026-12-02 */}'),
      guide.replace('| Share  | A link is sent |', '| Share | A link is sent |'),
    ];
    for (const text of same) expect((await digestOf('mdx', text)).digest).toBe(base.digest);
    const edits: Array<[string, string]> = [
      ['send a picture', 'send a photo'],
      ['tone="info"', 'tone="warning"'],
      ['{count}', '{total}'],
      ['<Screenshot src={Screenshot}', '<Screenshot src={Other}'],
      ["import Screenshot from './share.png'", "import Screenshot from './share-v2.png'"],
      ["author: 'Docs team'", "author: 'Web team'"],
      ['<Badge tone', '<Pill tone'],
      ['title: Sharing photos', 'title: Sharing pictures'],
    ];
    for (const [from, to] of edits) {
      const edited =
        from === '<Badge tone'
          ? guide.replace(from, to).replace('</Badge>', '</Pill>')
          : guide.replace(from, to);
      expect(edited).not.toBe(guide);
      expect((await digestOf('mdx', edited)).digest, to).not.toBe(base.digest);
    }
  });

  it('LibreOffice: a docx or xlsx it made and saved again is unchanged; its pptx drift (0.01 mm a save) counts', async () => {
    const same = async (a: string, b: string, ext: string) =>
      (await contentDigest(path.join(RESAVE, a), ext))?.digest ===
      (await contentDigest(path.join(RESAVE, b), ext))?.digest;
    expect(await same('libreoffice-saved.docx', 'libreoffice-saved-again.docx', 'docx')).toBe(true);
    expect(await same('libreoffice-status.xlsx', 'libreoffice-status-saved-again.xlsx', 'xlsx')).toBe(true);
    expect(await same('libreoffice-slides.pptx', 'libreoffice-slides-saved-again.pptx', 'pptx')).toBe(false);
  });

  it('says which unit changed, and whether its text or only its formatting', async () => {
    const before = await digestOf('txt', 'Alpha.\nBeta.\nGamma.');
    const after = await digestOf('txt', 'Alpha.\nBeta!\nGamma.\nDelta.');
    expect(describeChanges(before.parts, after.parts)).toEqual(['text: line 2 text', 'text: 1 more (added)']);
    const a = (await contentDigest(path.join(RESAVE, 'libreoffice-slides.pptx'), 'pptx'))!;
    const b = (await contentDigest(path.join(RESAVE, 'libreoffice-slides-saved-again.pptx'), 'pptx'))!;
    expect(describeChanges(a.parts, b.parts)).toContain('ppt/slides/slide1.xml: changed');
  });

  it('docx: a run made bold is a formatting change of its paragraph; a word, a text change', async () => {
    const source = path.join(RESAVE, 'libreoffice-saved-again.docx');
    const parts = await readZip(source);
    const edited = async (from: string, to: string) => {
      const xml = (parts.get('word/document.xml') as Buffer).toString('utf8');
      if (!xml.includes(from)) throw new Error(`no ${from}`);
      const entries = [...parts].filter(([name]) => !name.endsWith('/'));
      const changed = entries.map(([name, c]): [string, Buffer] =>
        name === 'word/document.xml' ? [name, Buffer.from(xml.replace(from, to))] : [name, c],
      );
      return digestOf('docx', await makeZip(changed));
    };
    const before = (await contentDigest(source, 'docx'))!;
    const bold = await edited('<w:rPr></w:rPr><w:t>Quarterly', '<w:rPr><w:b/></w:rPr><w:t>Quarterly');
    expect(describeChanges(before.parts, bold.parts)).toEqual(['word/document.xml: paragraph 1 formatting']);
    const word = await edited('Sales rose', 'Sales fell');
    expect(describeChanges(before.parts, word.parts)).toEqual(['word/document.xml: paragraph 2 text']);
  });
});

function installed(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// With LibreOffice installed (apt-get install libreoffice-writer-nogui libreoffice-calc-nogui): the
// committed LibreOffice files saved again by the LibreOffice of this machine keep their digest.
describe.skipIf(!installed('soffice'))('LibreOffice saving its own files again', () => {
  it('a docx and an xlsx made by LibreOffice, saved again by it: same content digest', async () => {
    const out = path.join(dir, 'lo-out');
    const inputs = ['libreoffice-saved-again.docx', 'libreoffice-status-saved-again.xlsx'];
    for (const f of inputs) {
      const ext = f.slice(-4);
      execFileSync(
        'soffice',
        [
          '--headless',
          `-env:UserInstallation=file://${dir}/lo-profile`,
          '--convert-to',
          ext,
          '--outdir',
          out,
          path.join(RESAVE, f),
        ],
        { stdio: 'ignore', timeout: 120_000 },
      );
      const before = await contentDigest(path.join(RESAVE, f), ext);
      const after = await contentDigest(path.join(out, f), ext);
      expect(fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(RESAVE, f)))).toBe(false);
      expect(after?.digest, describeChanges(before!.parts, after!.parts).join('\n')).toBe(before?.digest);
    }
  }, 240_000);
});
