import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countDocumentCharacters } from '../../src/billing/characters.js';
import { contentDigest } from '../../src/documents/digest/index.js';
import {
  DocumentFormatError,
  openDocument,
  segmentText,
  type Piece,
  type Segment,
  type TranslationOf,
} from '../../src/documents/index.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const GUIDE = path.join(FIXTURES, 'guide.md');

const dir = fs.mkdtemp(path.join(os.tmpdir(), 'locsync-markdown-'));
afterAll(async () => fs.rm(await dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const p = path.join(await dir, name);
  await fs.writeFile(p, text);
  return p;
}

async function segmentsOf(p: string): Promise<Segment[]> {
  const doc = await openDocument(p, { format: 'md' });
  const out: Segment[] = [];
  for await (const s of doc.segments()) out.push(s);
  return out;
}

async function translate(p: string, translationOf: TranslationOf): Promise<string> {
  const doc = await openDocument(p, { format: path.extname(p).slice(1) });
  const out = `${p}.out.md`;
  await doc.write(translationOf, { path: out, format: 'md' }, { targetLang: 'de' });
  return fs.readFile(out, 'utf8');
}

const upper: TranslationOf = (s) => s.pieces.map((p) => p.text.toUpperCase());
const crlf = (text: string): string => text.replace(/\n/g, '\r\n');

describe('Markdown', () => {
  it('reads headings, paragraphs, list items, cells, quotes, alt text, footnotes and front-matter values', async () => {
    const segments = await segmentsOf(GUIDE);
    const find = (text: string): Segment | undefined => segments.find((s) => segmentText(s) === text);
    expect(find('Getting started')).toMatchObject({
      role: 'attribute',
      where: 'line 2 (front matter title)',
    });
    expect(find('How to install the tool, and why it’s quick'.replace('’', "'"))?.role).toBe('attribute');
    expect(find('A short tour of the first steps.')?.where).toBe('line 6 (front matter summary)');
    expect(segments.filter((s) => s.role === 'heading').map(segmentText)).toEqual([
      'Getting started',
      'Setup overview',
      'Next steps',
    ]);
    expect(find('Right-click the icon.')).toMatchObject({ role: 'text', where: 'line 31' });
    expect(find('Skips the slow checks')?.role).toBe('cell');
    expect(find('Where the output | goes')?.role).toBe('cell');
    expect(find('A quoted note that spans two lines, with a link.')?.where).toBe('line 42');
    expect(find('A nested quote.')?.role).toBe('text');
    expect(find('Settings dialog')).toMatchObject({ role: 'attribute', where: 'line 47 (image alt)' });
    expect(find('The footnote text.')?.role).toBe('note');
    // emphasis and links are pieces of their paragraph: each run translated where it is
    expect(
      find(
        'Welcome to the quick guide. It shows how to install the tool and how to run it for the first time.',
      )?.pieces.length,
    ).toBe(5);

    const pieces = segments.flatMap((s) => s.pieces);
    const text = pieces
      .filter((p) => !p.code)
      .map((p) => p.text)
      .join('\n');
    // never text: code, URLs, keys, other front-matter values, HTML blocks, definitions
    for (const never of [
      'npm install',
      'https://',
      'example.com',
      'getting-started',
      'slug',
      'setup',
      'An HTML block',
      'code is never',
      'indented code',
      'dialog.png',
    ])
      expect(text).not.toContain(never);
    const code = pieces.filter((p) => p.code).map((p) => p.text);
    expect(code).toEqual(
      expect.arrayContaining([
        '`npm install sync-tool`',
        '<https://example.com>',
        'www.example.org',
        '<span class="key">',
        '[^1]',
      ]),
    );
  });

  it('writes each translation in place and keeps every other byte, with LF and with CRLF line endings', async () => {
    const source = await fs.readFile(GUIDE, 'utf8');
    const expected = await fs.readFile(path.join(FIXTURES, 'guide.upper.md'), 'utf8');
    expect(await translate(GUIDE, upper)).toBe(expected);
    // the golden output, checked by eye once, keeps code, URLs, keys and layout:
    for (const kept of [
      'slug: getting-started\ntags: [setup, install]\n',
      '# a comment in the front matter',
      '```js\n// code is never translated\nconst title = "Getting started";\n```',
      '    indented code stays as it is\n    second line of code',
      '<div class="note">\n  An HTML block stays as it is.\n</div>',
      '`npm install sync-tool`',
      '](https://example.com/install "Install notes")',
      '|:-------|:-------:|--------:|',
      '| `--fast` | OFF |',
      '  \nLINE TWO AFTER IT\\\nLINE THREE',
      '   - ON LINUX',
      '     1. RIGHT-CLICK',
      '- [x] INSTALLED',
      '> > A NESTED QUOTE.',
      '[ref]: https://example.com/reference "Reference"',
    ])
      expect(expected).toContain(kept);
    // collapsed and shortcut references keep their target once their text is translated
    expect(expected).toContain('THE [FAQ][] AND [SUPPORT][Support]');
    expect(expected).toContain('![TOOLBAR][Toolbar]');

    const windows = await file('windows.md', crlf(source));
    expect(await translate(windows, upper)).toBe(crlf(expected));
  });

  it('gives the source bytes back for an identity translation', async () => {
    const source = await fs.readFile(GUIDE, 'utf8');
    const windows = await file('identity.md', crlf(source));
    for (const p of [GUIDE, windows]) {
      const bytes = await fs.readFile(p, 'utf8');
      expect(await translate(p, (s) => s.pieces.map((x) => x.text))).toBe(bytes);
      expect(await translate(p, () => undefined)).toBe(bytes);
    }
  });

  it('escapes what a translation must not turn into syntax: the output reads back as the translation', async () => {
    // Markdown syntax at the start, inside and at the end of every piece: a heading or list
    // marker, emphasis, a link, code, HTML, an entity, a table bar, a closing heading sequence.
    // A bare www. or e-mail autolink needs a space or `(` on either side (GFM): the suffix ends
    // with `(` (a heading's with `#`, which must not close it), and a translation after such a link
    // starts with a space, as a translator keeps it (docs/markdown.md).
    const bareLink = (p: Piece | undefined): boolean => !!p?.code && /^(?:www\.|\w+@)/.test(p.text);
    const hostile = (t: string, role: string, after?: Piece): string =>
      `${bareLink(after) ? ' ' : ''}# 1. - > *a* _b_ [c](d) \`e\` <f> &amp; | \\ ~~g~~ ${t} 2) ==: 'x' "y" ${role === 'heading' ? '#' : '('}`;
    const translated = (s: Segment): Piece[] =>
      s.pieces.map((p, i) => (p.code ? p : { text: hostile(p.text, s.role, s.pieces[i - 1]) }));
    const translation: TranslationOf = (s) => translated(s).map((p) => p.text);
    const before = await segmentsOf(GUIDE);
    await translate(GUIDE, translation);
    const after = await segmentsOf(`${GUIDE}.out.md`);
    expect(after.map((s) => [s.role, s.where.replace(/line \d+/, 'line')])).toEqual(
      before.map((s) => [s.role, s.where.replace(/line \d+/, 'line')]),
    );
    // an image is a code piece of its paragraph whose alt text is a segment of its own
    const shown = (pieces: Segment['pieces']): string[] =>
      pieces.map((p) => (p.code ? (p.text.startsWith('![') ? 'image' : p.text) : p.text));
    after.forEach((s, i) => expect(shown(s.pieces)).toEqual(shown(translated(before[i] as Segment))));
  });

  it('counts the characters of the translatable text only (code, URLs and syntax are not billed)', async () => {
    const p = await file(
      'count.md',
      '# Title\n\nSome **bold** text with `code` and a [link](https://example.com/long/url).\n',
    );
    expect(await countDocumentCharacters(p)).toBe('Title'.length + 'Some bold text with  and a link.'.length);
  });

  it('refuses a file too large or nested too deep with a clear error, and reads deep but sane nesting', async () => {
    const big = await file('big.md', 'A paragraph.\n\n'.repeat(200));
    await expect(openDocument(big, { format: 'md', limits: { maxPartBytes: 1000 } })).rejects.toThrow(
      /the \.md file is 2800 bytes of text, more than the 1000 bytes/,
    );
    const lists = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    await expect(openDocument(await file('lists.md', lists), { format: 'md' })).rejects.toThrow(
      /nests block quotes or lists more than 100 levels deep \(line 102\)/,
    );
    const quotes = await file('quotes.md', `${'>'.repeat(5000)} deep\n`);
    await expect(openDocument(quotes, { format: 'md' })).rejects.toBeInstanceOf(DocumentFormatError);

    const nested = Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    const ok = await file('nested.md', `${nested}\n\n${'> '.repeat(40)}quoted\n`);
    const segments = await segmentsOf(ok);
    expect(segments.map(segmentText)).toEqual([
      ...Array.from({ length: 40 }, (_, i) => `item ${i}`),
      'quoted',
    ]);
    expect(await translate(ok, upper)).toBe(
      `${nested.replace(/item/g, 'ITEM')}\n\n${'> '.repeat(40)}QUOTED\n`,
    );
  });

  it('has a content digest that a reflow, line endings or a comment do not change, and an edit does', async () => {
    const source = await fs.readFile(GUIDE, 'utf8');
    const digestOf = async (name: string, text: string): Promise<string | undefined> =>
      (await contentDigest(await file(name, text), 'md'))?.digest;
    const base = await digestOf('d0.md', source);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await digestOf('d1.md', crlf(source))).toBe(base);
    expect(
      await digestOf(
        'd2.md',
        source.replace('It shows _how_ to install the tool\nand', 'It shows _how_\nto install the tool and'),
      ),
    ).toBe(base);
    expect(await digestOf('d3.md', source.replace('***\n', '<!-- reviewed -->\n\n***\n'))).toBe(base);
    expect(
      await digestOf('d4.md', source.replace('# a comment in the front matter', '# another comment')),
    ).toBe(base);
    expect(await digestOf('d5.md', source.replace('Close the terminal.', 'Close the window.'))).not.toBe(
      base,
    );
    expect(await digestOf('d6.md', source.replace('const title', 'const  title'))).not.toBe(base);
    expect(
      await digestOf('d7.md', source.replace('https://example.com/install', 'https://example.com/setup')),
    ).not.toBe(base);
  });
});
