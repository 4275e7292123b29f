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
] as const;

const UNIT_BLOCKS: Partial<Record<Nodes['type'], string>> = {
  paragraph: 'paragraph',
  heading: 'heading',
  tableCell: 'cell',
  code: 'code block',
};

const COMMENT_ONLY = /^\s*(?:<!--[\s\S]*?-->\s*)+$/;

/** The node as hashed: its type, its shown properties and its value (text with whitespace runs as one space). */
function canonical(node: Nodes): { key: string; text?: string } {
  const fields = node as unknown as Record<string, unknown>;
  const props = PROPERTIES.filter((p) => fields[p] != null).map((p) => `${p}=${JSON.stringify(fields[p])}`);
  const key = `<${node.type}${props.length ? ' ' + props.join(' ') : ''}>`;
  if (node.type === 'text') return { key, text: node.value.replace(/\s+/g, ' ') };
  if (!('value' in node)) return { key };
  // Code keeps its whitespace, but not its line-ending convention.
  const value = node.value.replace(/\r\n?/g, '\n');
  return { key: `${key}${node.type === 'yaml' ? frontMatterData(value) : value}` };
}

export async function digestMarkdown(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .md file');
  const tree = parseMarkdown(text, 'the .md file', DEFAULT_LIMITS.maxPartBytes);
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
    if (node.type === 'html' && COMMENT_ONLY.test(node.value)) continue;
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
  return digestOf('markdown', [part.finish()]);
}
