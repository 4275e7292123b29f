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
    // titles of links, images and reference definitions, in each delimiter, escapes and references read
    expect(find('Install notes')).toMatchObject({ role: 'attribute', where: 'line 21 (link title)' });
    expect(find('Main window')).toMatchObject({ role: 'attribute', where: 'line 47 (image title)' });
    expect(find('Reference')?.where).toBe('line 75 (link title)');
    expect(find('Questions & "answers"')?.where).toBe('line 76 (link title)');
    expect(find('Help (all day)')?.where).toBe('line 78 (link title)');
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
      '](https://example.com/install "INSTALL NOTES")',
      '|:-------|:-------:|--------:|',
      '| `--fast` | OFF |',
      '  \nLINE TWO AFTER IT\\\nLINE THREE',
      '   - ON LINUX',
      '     1. RIGHT-CLICK',
      '- [x] INSTALLED',
      '> > A NESTED QUOTE.',
      '[ref]: https://example.com/reference "REFERENCE"',
      '[support]: https://example.com/support\n  (HELP \\(ALL DAY\\))\n',
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

  it('writes a translated title inside its delimiters, escaped so that no quote or parenthesis ends it', async () => {
    const p = await file(
      'titles.md',
      [
        'A [link](https://x.test/a "Title one") and ![alt](img.png \'Image title\') and [p](u (Paren title)).',
        '',
        '[id]: https://x.test/b',
        '  "Definition title"',
        '[e]: u "Tom &amp; \\"Jerry\\""',
        '[n]: u',
        '',
      ].join('\n'),
    );
    const titles = (await segmentsOf(p)).filter((s) => s.where.endsWith('title)'));
    expect(titles.map((s) => [segmentText(s), s.where])).toEqual([
      ['Title one', 'line 1 (link title)'],
      ['Image title', 'line 1 (image title)'],
      ['Paren title', 'line 1 (link title)'],
      ['Definition title', 'line 4 (link title)'],
      ['Tom & "Jerry"', 'line 5 (link title)'],
    ]);
    const hostile = 'Er sagt "ja" (sic) \'x\' C:\\Temp\\ &amp; *y*\nzwei)';
    const out = await translate(p, (s) => (s.where.endsWith('title)') ? [hostile] : undefined));
    expect(out).toBe(
      [
        'A [link](https://x.test/a "Er sagt \\"ja\\" (sic) \'x\' C:\\\\Temp\\\\ \\&amp; *y* zwei)") and ' +
          "![alt](img.png 'Er sagt \"ja\" (sic) \\'x\\' C:\\\\Temp\\\\ \\&amp; *y* zwei)') and " +
          '[p](u (Er sagt "ja" \\(sic\\) \'x\' C:\\\\Temp\\\\ \\&amp; *y* zwei\\))).',
        '',
        '[id]: https://x.test/b',
        '  "Er sagt \\"ja\\" (sic) \'x\' C:\\\\Temp\\\\ \\&amp; *y* zwei)"',
        '[e]: u "Er sagt \\"ja\\" (sic) \'x\' C:\\\\Temp\\\\ \\&amp; *y* zwei)"',
        '[n]: u',
        '',
      ].join('\n'),
    );
    // read back: every title is the translation (a line break as a space), the links keep their URLs
    const back = await segmentsOf(`${p}.out.md`);
    expect(back.filter((s) => s.where.endsWith('title)')).map(segmentText)).toEqual(
      Array(5).fill(hostile.replace('\n', ' ')),
    );
    expect(back.map(segmentText)).toContain('A link and  and p.');
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

  it('refuses emphasis, strikethrough or links nested over 100 levels deep before parsing them, naming the line', async () => {
    // micromark's time grows with the square of the open delimiters: 3,200 levels took over a minute
    const hostile = {
      'emphasis.md': `# Title\n\nIntro.\n${'*a '.repeat(3200)}x${' b*'.repeat(3200)}\n`,
      'runs.md': `# Title\n\nIntro.\n${'*'.repeat(3200)}x${'*'.repeat(3200)}\n`,
      'mixed.md': `# Title\n\nIntro.\n${'_a ~~b [c '.repeat(800)}x${' d] e~~ f_'.repeat(800)}\n`,
      'links.md': `# Title\n\nIntro.\n${'['.repeat(3200)}x${'](u)'.repeat(3200)}\n`,
    };
    for (const [name, text] of Object.entries(hostile)) {
      const opened = openDocument(await file(name, text), { format: 'md' });
      await expect(opened, name).rejects.toBeInstanceOf(DocumentFormatError);
      await expect(opened, name).rejects.toThrow(
        /^the \.md file nests emphasis, strikethrough or links more than 100 levels deep \(line 4\)$/,
      );
    }
    // Delimiters that do not nest: in code spans and fenced code, side by side, or a sane depth.
    const globs = Array.from({ length: 60 }, (_, i) => `| \`**/*.md\` | \`src/**\` | *a* **b** _${i}_ |`);
    const sane = [
      '| pattern | files | note |',
      '|---|---|---|',
      ...globs,
      '',
      '```c',
      ...Array.from({ length: 120 }, () => 'char **argv = *p; [[x]];'),
      '```',
      '',
      `${'*a* _b_ [c](d) ~~e~~ '.repeat(60)}end`,
      '',
      `${'*a _b '.repeat(20)}deep${' c_ d*'.repeat(20)}`,
      '',
    ].join('\n');
    const segments = await segmentsOf(await file('sane.md', sane));
    expect(segments.map(segmentText)).toContain(`${'a b '.repeat(20)}deep${' c d'.repeat(20)}`);
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
