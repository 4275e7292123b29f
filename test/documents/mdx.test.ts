// MDX (docs/mdx.md) on the segment path: the Markdown parts translated in place (also inside JSX
// elements), JSX tags and attributes, {expressions} and import/export never; hostile translations
// stay text; an edited paragraph is the only text sent again.
// Fixture guide.mdx written by hand in the syntax of mdxjs.com's docs (Debian packages no MDX tool);
// the test checks it parses with remark-mdx, which the MDX compiler itself uses.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDocument, type Segment, type TranslationOf } from '../../src/documents/index.js';
import { parseMarkdown } from '../../src/documents/formats/markdown-parse.js';
import { checkOutput } from '../../src/qa/check-output.js';
import { DEFAULT_QA_SETTINGS } from '../../src/qa/checks.js';
import { createFixture, type Fixture } from '../sync/fixture.js';
import { textRequests } from '../segments/helpers.js';
import { expectResavedUnchanged } from './resaved-source.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/mdx');
const GUIDE = path.join(FIXTURES, 'guide.mdx');
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-mdx-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

const source = () => fs.readFile(GUIDE, 'utf8');
const open = (file: string) => openDocument(file, { format: 'mdx' });

async function segmentsOf(file: string): Promise<Segment[]> {
  const out: Segment[] = [];
  for await (const s of (await open(file)).segments()) out.push(s);
  return out;
}

const shout: TranslationOf = (s) => s.pieces.map((p) => (p.code ? p.text : p.text.toUpperCase()));

let n = 0;
async function write(file: string, translationOf: TranslationOf, lang = 'de'): Promise<string> {
  const out = path.join(dir, `out-${n++}.mdx`);
  await (await open(file)).write(translationOf, { path: out, format: 'mdx' }, { targetLang: lang });
  return fs.readFile(out, 'utf8');
}

/** The MDX nodes of a text (JSX elements by name and attributes, expressions, ESM), in order. */
function mdxNodes(text: string): string[] {
  interface Node {
    type: string;
    name?: string | null;
    value?: string;
    attributes?: Array<{ name?: string; value?: string | { value: string } | null }>;
    children?: Node[];
  }
  const out: string[] = [];
  const walk = (node: Node): void => {
    if (node.type.startsWith('mdx'))
      out.push(
        [
          node.type,
          node.name ?? node.value,
          ...(node.attributes ?? []).map(
            (a) => `${a.name}=${typeof a.value === 'object' ? a.value?.value : a.value}`,
          ),
        ].join(' '),
      );
    for (const c of node.children ?? []) walk(c);
  };
  walk(parseMarkdown(text, 'the .mdx file', 1e8, true) as Node);
  return out;
}

describe('MDX files', () => {
  it('the Markdown parts are segments; JSX, expressions and import/export are not text', async () => {
    const segments = await segmentsOf(GUIDE);
    expect(
      segments.map((s) => [s.where, s.pieces.map((p) => (p.code ? `[${p.text}]` : p.text)).join('')]),
    ).toEqual([
      ['line 2 (front matter title)', 'Sharing photos'],
      ['line 3 (front matter description)', 'How to share a photo with your family'],
      ['line 12', 'Sharing photos'],
      [
        'line 14',
        'Tap Share to send a picture to [{props.audience ?? \'your family\'}]. You have [{count}] photos in [<Badge tone="info">]your library[</Badge>] today.',
      ],
      ['line 18', 'Deleting a shared album removes it for everyone.'],
      ['line 20', 'It cannot be undone.'],
      ['line 21', 'Ask the owner first.'],
      ['line 33', 'Read the sharing guide for more.'],
      ['line 33 (link title)', 'Sharing guide'],
      ['line 35', 'Action'],
      ['line 35', 'What happens'],
      ['line 37', 'Share'],
      ['line 37', 'A link is sent'],
    ]);
    const text = segments.flatMap((s) => s.pieces.filter((p) => !p.code).map((p) => p.text)).join('\n');
    for (const never of [
      'import',
      'export',
      'Callout',
      'warning',
      'Do not translate',
      'The share sheet',
      'comment for writers',
      'getFullYear',
      'code is never',
    ])
      expect(text).not.toContain(never);
  });

  it('identity is byte-identical; a translation changes the Markdown text and nothing else', async () => {
    const src = await source();
    expect(await write(GUIDE, () => undefined)).toBe(src);
    expect(await write(GUIDE, (s) => s.pieces.map((p) => p.text))).toBe(src);
    const out = await write(GUIDE, shout);
    expect(mdxNodes(out)).toEqual(mdxNodes(src));
    expect(out).toBe(
      src
        .replace('title: Sharing photos', 'title: SHARING PHOTOS')
        .replace(
          'description: How to share a photo with your family',
          'description: HOW TO SHARE A PHOTO WITH YOUR FAMILY',
        )
        .replace('# Sharing photos', '# SHARING PHOTOS')
        .replace('Tap **Share** to send a picture to {', 'TAP **SHARE** TO SEND A PICTURE TO {')
        // a translated paragraph's soft line break is a space (docs/markdown.md)
        .replace(
          '.\nYou have {count} photos in <Badge tone="info">your library</Badge> today.',
          '. YOU HAVE {count} PHOTOS IN <Badge tone="info">YOUR LIBRARY</Badge> TODAY.',
        )
        .replace(
          'Deleting a shared album removes it for *everyone*.',
          'DELETING A SHARED ALBUM REMOVES IT FOR *EVERYONE*.',
        )
        .replace(
          '- It cannot be undone.\n  - Ask the owner first.',
          '- IT CANNOT BE UNDONE.\n  - ASK THE OWNER FIRST.',
        )
        .replace(
          'Read the [sharing guide](https://example.com/share "Sharing guide") for more.',
          'READ THE [SHARING GUIDE](https://example.com/share "SHARING GUIDE") FOR MORE.',
        )
        .replace('| Action | What happens |', '| ACTION | WHAT HAPPENS |')
        .replace('| Share  | A link is sent |', '| SHARE  | A LINK IS SENT |'),
    );
  });

  it('hostile translations (JSX, braces, import/export, Markdown syntax, newlines, RTL) stay text', async () => {
    const hostile =
      'export const x = {1} <Evil onClick={alert(1)} /> **b** {/* c */}\n\nimport y from "z" \u202Eمرحبا';
    const out = await write(GUIDE, (s) => s.pieces.map((p) => (p.code ? p.text : hostile)), 'ar');
    const file = path.join(dir, 'hostile.mdx');
    await fs.writeFile(file, out);
    // the same MDX nodes as the source: none made by a translation
    expect(mdxNodes(out)).toEqual(mdxNodes(await source()));
    const back = await segmentsOf(file);
    // every text piece reads back as the hostile text (its line breaks as spaces, docs/markdown.md)
    const flat = (t: string) => t.replace(/\s+/g, ' ');
    expect(back.map((s) => s.where)).toEqual(
      (await segmentsOf(GUIDE)).map((s) =>
        s.where.replace(/^line (1[5-9]|[2-9]\d)/, (_m, l: string) => `line ${Number(l) - 1}`),
      ),
    );
    for (const s of back)
      for (const p of s.pieces) if (!p.code) expect(flat(p.text), s.where).toBe(flat(hostile));
  });

  it('the output checks pass on good output and catch a dropped {expression}', async () => {
    const check = (out: string) =>
      checkOutput({
        source: { path: GUIDE, format: 'mdx' },
        output: { path: out, format: 'mdx' },
        targetLang: 'de',
        sourceLang: 'en',
        settings: { ...DEFAULT_QA_SETTINGS, ignore: ['language'] },
      });
    const good = path.join(dir, 'good.mdx');
    await fs.writeFile(good, await write(GUIDE, shout));
    const passed = await check(good);
    expect(passed.findings).toEqual([]);
    const bad = path.join(dir, 'bad.mdx');
    await fs.writeFile(
      bad,
      (await fs.readFile(good, 'utf8')).replace('YOU HAVE {count} PHOTOS', 'YOU HAVE PHOTOS'),
    );
    const findings = (await check(bad)).findings;
    expect(findings.map((f) => f.message)).toEqual([expect.stringContaining('"{count}"')]);
  });

  it('a file that is not valid MDX is refused naming the line', async () => {
    const bad = path.join(dir, 'broken.mdx');
    await fs.writeFile(bad, '# Title\n\nSome text.\n\n<Callout>\n  Unclosed\n');
    await expect(open(bad)).rejects.toThrow(/the \.mdx file is not valid MDX \(line \d+\)/);
    await fs.writeFile(bad, '# Title\n\nA {broken ( expression}.\n');
    await expect(open(bad)).rejects.toThrow(/not valid MDX \(line 3\)/);
  });
});

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('MDX in a sync', () => {
  it('segment path only; golden output; an edited paragraph is the only text sent again', async () => {
    const src = await source();
    const mapping = (name: string, method?: string) => ({
      name,
      source: 'src',
      source_lang: 'en',
      output: `out/${name}/{lang}/{path}`,
      targets: [{ lang: 'de' }],
      ...(method ? { method } : {}),
    });
    fx = await createFixture({
      files: { 'guide.mdx': src },
      manifest: { mappings: [mapping('seg', 'segments'), mapping('doc')] },
    });
    const first = await fx.sync();
    expect(first.failed).toEqual([]);
    // never uploaded: under method: document an .mdx file goes by segments too
    expect(first.unsupported).toEqual([]);
    expect(fx.uploads()).toEqual([]);
    const golden = await fs.readFile(path.join(FIXTURES, 'guide.de.mdx'), 'utf8');
    expect(fx.read('out/seg/de/guide.mdx')).toBe(golden);
    expect(fx.read('out/doc/de/guide.mdx')).toBe(golden);

    fx.write('src/guide.mdx', src.replace('Ask the owner first.', 'Ask the album owner first.'));
    const mark = fx.mark();
    expect((await fx.sync()).failed).toEqual([]);
    expect(textRequests(fx, mark).map((r) => [r.texts, r.characters])).toEqual([
      [1, 'Ask the album owner first.'.length],
    ]);
  });

  it('a file saved again with other line endings, wrapping or {/* comments */} is re-saved, not translated again', async () => {
    const src = await source();
    // Reformatted by an editor: CRLF, a paragraph wrapped again, trailing spaces, a comment edited.
    await expectResavedUnchanged(
      'guide.mdx',
      src,
      src
        .replace('Tap **Share** to send a picture', 'Tap **Share**  to send\na picture')
        .replace('# Sharing photos\n', '# Sharing photos   \n')
        .replace('{/* A comment for writers: never translated */}', '{/* Checked 2026-12-02 */}')
        .replaceAll('\n', '\r\n'),
    );
  });
});
