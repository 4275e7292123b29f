import { readFile } from 'node:fs/promises';
import type { Nodes, Parent } from 'mdast';
import { frontMatterData } from '../formats/markdown-front-matter.js';
import { parseMarkdown } from '../formats/markdown-parse.js';
import { decodeText } from '../formats/text-encoding.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// Markdown: the parsed tree (the reader's parse), so that what only the source's layout decides is
// not content: line endings, indentation, how a paragraph is wrapped (a soft line break is a space),
// runs of spaces, table padding, which list bullet or emphasis marker is used, blank lines that do
// not split a block, HTML comments, comments in the front matter. Code (blocks and inline), HTML, URLs, titles, front-matter data and
// every structural property (heading level, list numbering, table alignment, task state) are
// content, code exactly as written. Each block with text is a unit for `plan --why`.
//
// MDX is the same parse with remark-mdx: a JSX element's name and attributes, `{expressions}` and
// import/export are content, written exactly (line endings aside); an expression that is only a
// comment (`{/* … */}`) is not, as an HTML comment is not in Markdown.

/** Node properties that change what the document shows or links to (positions and list looseness do not). */
const PROPERTIES = [
  'depth',
  'ordered',
  'start',
  'checked',
  'lang',
  'meta',
  'url',
  'title',
  'alt',
  'identifier',
  'referenceType',
  'align',
  'name',
] as const;

const UNIT_BLOCKS: Partial<Record<Nodes['type'], string>> = {
  paragraph: 'paragraph',
  heading: 'heading',
  tableCell: 'cell',
  code: 'code block',
};

const COMMENT_ONLY = /^\s*(?:<!--[\s\S]*?-->\s*)+$/;
/** An MDX expression that is only JavaScript comments. */
const JS_COMMENT_ONLY = /^\s*(?:(?:\/\*[\s\S]*?\*\/|\/\/[^\n]*)\s*)+$/;
const EXPRESSIONS = new Set(['mdxFlowExpression', 'mdxTextExpression']);

/** Whether a node is a comment: left out of the digest. */
function isComment(node: Nodes): boolean {
  if (node.type === 'html') return COMMENT_ONLY.test(node.value);
  return EXPRESSIONS.has(node.type) && 'value' in node && JS_COMMENT_ONLY.test(String(node.value));
}

/** A JSX element's attributes as written (values exactly, line endings aside), in order. */
function jsxAttributes(node: Nodes): string {
  if (!('attributes' in node) || !Array.isArray(node.attributes)) return '';
  const attrs = node.attributes as Array<{ type: string; name?: string; value?: unknown }>;
  const valueOf = (v: unknown): unknown =>
    v && typeof v === 'object' && 'value' in v ? { expression: String(v.value).replace(/\r\n?/g, '\n') } : v;
  return ` attributes=${JSON.stringify(attrs.map((a) => [a.type, a.name ?? null, valueOf(a.value) ?? null]))}`;
}

/** The node as hashed: its type, its shown properties and its value (text with whitespace runs as one space). */
function canonical(node: Nodes): { key: string; text?: string } {
  const fields = node as unknown as Record<string, unknown>;
  const props = PROPERTIES.filter((p) => fields[p] != null).map((p) => `${p}=${JSON.stringify(fields[p])}`);
  const key = `<${node.type}${props.length ? ' ' + props.join(' ') : ''}${jsxAttributes(node)}>`;
  if (node.type === 'text') return { key, text: node.value.replace(/\s+/g, ' ') };
  if (!('value' in node)) return { key };
  // Code keeps its whitespace, but not its line-ending convention.
  const value = node.value.replace(/\r\n?/g, '\n');
  return { key: `${key}${node.type === 'yaml' ? frontMatterData(value) : value}` };
}

export const digestMarkdown = (path: string): Promise<ContentDigest> => digestTree(path, 'md');
export const digestMdx = (path: string): Promise<ContentDigest> => digestTree(path, 'mdx');

async function digestTree(path: string, format: 'md' | 'mdx'): Promise<ContentDigest> {
  const what = `the .${format} file`;
  const { text } = decodeText(await readFile(path), what);
  const tree = parseMarkdown(text, what, DEFAULT_LIMITS.maxPartBytes, format === 'mdx');
  const part = new PartHasher('markdown');
  let units = 0;
  // Depth-first with a stack (a hostile file nests lists as deep as it likes); a closer ends a unit.
  const stack: Array<Nodes | (() => void)> = [tree];
  while (stack.length) {
    const node = stack.pop() as Nodes | (() => void);
    if (typeof node === 'function') {
      node();
      continue;
    }
    if (isComment(node)) continue;
    const unit = UNIT_BLOCKS[node.type];
    if (unit) part.startUnit(`${unit} ${++units}`, node.position?.start.line);
    const { key, text: value } = canonical(node);
    part.add(key);
    if (value !== undefined) part.add(value, true);
    stack.push(() => {
      part.add(`</${node.type}>`);
      if (unit) part.endUnit();
    });
    const children = 'children' in node ? (node as Parent).children : [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Nodes);
  }
  return digestOf(format === 'mdx' ? 'mdx' : 'markdown', [part.finish()]);
}
