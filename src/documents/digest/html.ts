import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { parseHtmlFile } from '../formats/html.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// HTML: the reader's parsed tree, not the bytes. As for plain text (plain-text.ts), the encoding and
// a byte order mark are not content, nor is the line-ending convention. docs/content-digest.md has
// the table.

/**
 * The parsed tree (doctype, elements with their attributes in name order, text) without comments:
 * a comment is never shown, never translated, and editors and build tools rewrite them (timestamps,
 * generator notes). Each text is a unit for `plan --why`.
 */
export async function digestHtml(path: string): Promise<ContentDigest> {
  const { tree } = await parseHtmlFile(path, 'the .html file');
  const part = new PartHasher('html');
  let texts = 0;
  const visit = (node: T.ParentNode): void => {
    for (const child of node.childNodes) {
      if (child.nodeName === '#comment') continue;
      if (child.nodeName === '#text') {
        const value = (child as T.TextNode).value;
        if (value.trim() === '') {
          part.add(`#${value}`);
          continue;
        }
        part.startUnit(`text ${++texts}`);
        part.add(`#${value}`, true);
        part.endUnit();
      } else if (child.nodeName === '#documentType') {
        part.add(`<!DOCTYPE ${(child as T.DocumentType).name}>`);
      } else if ('tagName' in child) {
        const el = child as T.Element;
        const attrs = el.attrs
          .map((a) => `${a.prefix ? a.prefix + ':' : ''}${a.name}=${JSON.stringify(a.value)}`)
          .sort();
        part.add(`<${el.tagName} ${attrs.join(' ')}>`);
        visit(el.tagName === 'template' ? (el as T.Template).content : el);
        part.add(`</${el.tagName}>`);
      }
    }
  };
  visit(tree);
  return digestOf('html', [part.finish()]);
}
