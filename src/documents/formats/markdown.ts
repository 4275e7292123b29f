// Markdown (.md, .markdown), on the segment path only (the document service does not take it):
// headings, paragraphs (in lists, block quotes, footnotes), table cells, image alt text, link, image
// and definition titles and the values of a documented set of front-matter keys are translated;
// code blocks, inline code, HTML, URLs, reference labels and front-matter keys are not
// (docs/markdown.md). The writer puts each translated text into the source at its parsed offsets
// instead of printing the tree again, so every other byte (indentation, list markers, table
// alignment, hard breaks, line endings) stays.
//
// MDX (.mdx) is read the same way with remark-mdx: the Markdown inside and between JSX elements is
// translated; JSX tags and attributes, `{expressions}` and import/export never (docs/mdx.md).
import { readFile, writeFile } from 'node:fs/promises';
import type { Nodes, Parent } from 'mdast';
import { checkAborted } from '../limits.js';
import type { Segment, SegmentRole } from '../segment.js';
import { applySplices, type Splice } from './xml.js';
import { escapeMarkdownText } from './markdown-escape.js';
import { frontMatterValues, yamlScalar, type FrontMatterValue } from './markdown-front-matter.js';
import { readInline, type AltText, type BlockKind, type InlineRun } from './markdown-inline.js';
import { parseMarkdown } from './markdown-parse.js';
import { escapeMarkdownTitle, titleOf, type TitleText } from './markdown-title.js';
import { decodeText, encodeTranslated } from './text-encoding.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';

/** A block's segment and where its pieces are in the source. */
interface BlockSlot {
  segment: Segment;
  run: InlineRun;
}

/** A segment of one text replaced whole: an image's alt text, a title or a front-matter value. */
interface WholeSlot {
  segment: Segment;
  start: number;
  end: number;
  /** The source text to write for a translation. */
  write(translation: string): string;
  /** Source to insert besides (a reference image's label), when translated. */
  keep?: { at: number; text: string };
}

const PHRASING_BLOCKS: Partial<Record<Nodes['type'], BlockKind>> = {
  paragraph: 'paragraph',
  heading: 'heading',
  tableCell: 'cell',
};
/** Blocks whose children are blocks to read; anything else (code, html, definitions, toml, breaks) stays. */
const CONTAINERS = new Set<Nodes['type']>([
  'root',
  'blockquote',
  'list',
  'listItem',
  'footnoteDefinition',
  'table',
  'tableRow',
  // MDX: a JSX element on lines of its own holds Markdown blocks (its tags and attributes stay).
  'mdxJsxFlowElement',
]);

function roleOf(kind: BlockKind, inFootnote: boolean): SegmentRole {
  if (kind === 'heading') return 'heading';
  if (kind === 'cell') return 'cell';
  return inFootnote ? 'note' : 'text';
}

export const readMarkdown: FormatReader = async (path, ctx) => {
  const what = `the .${ctx.format} file`;
  const decoded = decodeText(await readFile(path), what);
  const source = decoded.text;
  const mdx = ctx.format === 'mdx';
  const tree = parseMarkdown(source, what, ctx.limits.maxPartBytes, mdx);
  const found = new SegmentList();
  const blocks: BlockSlot[] = [];
  const wholes: WholeSlot[] = [];
  let visited = 0;
  const tick = (): void => {
    if (++visited % 2000 === 0) checkAborted(ctx);
  };

  const addAlt = (alt: AltText): void => {
    const segment = found.add('attribute', `line ${alt.line} (image alt)`, [{ text: alt.text }]);
    if (segment)
      wholes.push({
        segment,
        start: alt.start,
        end: alt.end,
        write: (t) => escapeMarkdownText(t, { mdx }),
        ...(alt.keep ? { keep: alt.keep } : {}),
      });
  };
  const addTitle = (t: TitleText, of: string): void => {
    const segment = found.add('attribute', `line ${t.line} (${of} title)`, [{ text: t.text }]);
    if (segment)
      wholes.push({ segment, start: t.start, end: t.end, write: (x) => escapeMarkdownTitle(x, t.delimiter) });
  };
  const addFrontMatter = (v: FrontMatterValue): void => {
    const segment = found.add('attribute', `line ${v.line} (front matter ${v.key})`, [{ text: v.text }]);
    const raw = source.slice(v.start, v.end);
    if (segment)
      wholes.push({ segment, start: v.start, end: v.end, write: (t) => yamlScalar(t, v.style, raw) });
  };

  // Blocks in document order, with a stack rather than recursion: lists and quotes nest as deep as a
  // hostile file makes them.
  const stack: Array<{ node: Nodes; inFootnote: boolean }> = [{ node: tree, inFootnote: false }];
  while (stack.length) {
    const { node, inFootnote } = stack.pop() as { node: Nodes; inFootnote: boolean };
    tick();
    const kind = PHRASING_BLOCKS[node.type];
    if (kind) {
      const run = readInline(source, node as Parent, kind, tick);
      const segment = found.add(
        roleOf(kind, inFootnote),
        `line ${node.position?.start.line ?? 0}`,
        run.pieces,
      );
      if (segment) blocks.push({ segment, run });
      run.alts.forEach(addAlt);
      for (const t of run.titles) addTitle(t, t.of);
    } else if (node.type === 'definition') {
      const at = { start: node.position?.start.offset, end: node.position?.end.offset };
      const t =
        at.start === undefined || at.end === undefined
          ? undefined
          : titleOf(source, node.title, at.start, at.end, node.position?.start.line ?? 0, false);
      if (t) addTitle(t, 'link');
    } else if (node.type === 'yaml') {
      frontMatterValues(source, node, what).forEach(addFrontMatter);
    } else if (CONTAINERS.has(node.type)) {
      const children = (node as Parent).children;
      const footnote = inFootnote || node.type === 'footnoteDefinition';
      for (let i = children.length - 1; i >= 0; i--)
        stack.push({ node: children[i] as Nodes, inFootnote: footnote });
    }
  }

  return openedDocument({
    format: ctx.format,
    keepsLayout: true,
    outputFormats: [ctx.format],
    segments: found.segments,
    async write(translationOf, out) {
      const splices: Splice[] = [];
      for (const { segment, run } of blocks) {
        const texts = textsOut(segment, segment.pieces, translationOf);
        const changed = texts.map((t, i) => t !== segment.pieces[i]?.text);
        run.slots.forEach((slot, i) => {
          if (slot && changed[i])
            splices.push({
              start: slot.start,
              end: slot.end,
              text: escapeMarkdownText(texts[i] as string, mdx ? { ...slot.place, mdx } : slot.place),
            });
        });
        for (const keep of run.labels)
          if (changed.slice(keep.from, keep.to).some(Boolean))
            splices.push({ start: keep.at, end: keep.at, text: keep.text });
      }
      for (const w of wholes) {
        const translated = textsOut(w.segment, w.segment.pieces, translationOf).join('');
        if (translated === w.segment.pieces[0]?.text) continue;
        splices.push({ start: w.start, end: w.end, text: w.write(translated) });
        if (w.keep) splices.push({ start: w.keep.at, end: w.keep.at, text: w.keep.text });
      }
      // An insertion goes before a replacement that starts where it is (applySplices' sort is stable).
      splices.sort((a, b) => a.start - b.start || a.end - b.end);
      await writeFile(out.path, encodeTranslated(applySplices(source, splices), decoded));
    },
  });
};
