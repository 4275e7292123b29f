// Emphasis resolved in linear time (src/documents/formats/markdown-attention.ts) gives the tree
// micromark's own construct gives, positions included; thousands of flat emphasis delimiters in one
// paragraph (seconds with micromark's resolver: bench/markdown-emphasis.ts) read and write right.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument, segmentText, type Segment } from '../../src/documents/index.js';
import { parseMarkdown } from '../../src/documents/formats/markdown-parse.js';

/** The parser as it was, with micromark's own emphasis. */
const micromarks = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkFrontmatter, ['yaml', 'toml'])
  .freeze();

const dir = fs.mkdtemp(path.join(os.tmpdir(), 'locsync-md-attention-'));
afterAll(async () => fs.rm(await dir, { recursive: true, force: true }));

describe('Markdown emphasis', () => {
  it("parses as micromark's own construct does (rule of 3, runs used in part, both markers, nesting, escapes)", () => {
    const cases = [
      '*a* _b_ **c** __d__ ***e*** ___f___',
      '*a **b** c* **a *b* c** _a __b__ c_',
      '*a**b*  **a*b**  *a***b*  ***a*b**  a**b*c**',
      '*a _b* c_  _a *b_ c*  **a _b** c_',
      'snake_case_name __init__ 2*3*4 a * b * c',
      '*a `*` b* \\*not\\* [*link*](u) ![*alt*](i) <b>*x*</b>',
      '****a****  *****a*****  **a*  *a**  ***a**  ***a* b**',
      '*a\nb* _c\n\nd_ **e ~~f~~ g** ~~*h*~~',
      '- *item* one\n- **item** two\n\n> *quoted _and* nested_',
      '_(a)_ *"b"* **\'c\'** *a*b *a*.  _a_b _a_.  *é* _ü_',
      `${'a_ '.repeat(50)}${'*b* '.repeat(50)}${'c* '.repeat(50)}*${'d_ '.repeat(30)}*`,
    ];
    for (const text of cases)
      expect(parseMarkdown(text, 'the .md file', 1e6), text).toEqual(micromarks.parse(text));
  });

  it('reads and writes 5,000 flat emphasis delimiters of each kind in one paragraph', async () => {
    // Each run, what a reader reads of it and what is written of it upper-cased (an unmatched `*`
    // is text, escaped when written).
    for (const [run, kind, read, written] of [
      ['*a* ', 'star', 'a ', '*A* '],
      ['_a_ ', 'underscore', 'a ', '_A_ '],
      ['**a** ', 'strong', 'a ', '**A** '],
      ['a* ', 'unmatched', 'a* ', 'A\\* '],
    ] as const) {
      const source = path.join(await dir, `${kind}.md`);
      await fs.writeFile(source, `Intro ${run.repeat(5000)}end\n`);
      const doc = await openDocument(source, { format: 'md' });
      const segments: Segment[] = [];
      for await (const s of doc.segments()) segments.push(s);
      expect(segments.length, kind).toBe(1);
      // Compared as booleans: a failure would print 20,000 characters twice.
      expect(segmentText(segments[0]!) === `Intro ${read.repeat(5000)}end`, kind).toBe(true);
      const out = `${source}.out.md`;
      await doc.write(
        (s) => s.pieces.map((p) => (p.code ? p.text : p.text.toUpperCase())),
        { path: out, format: 'md' },
        { targetLang: 'de' },
      );
      const text = await fs.readFile(out, 'utf8');
      expect(text === `INTRO ${written.repeat(5000)}END\n`, kind).toBe(true);
    }
  });
});
