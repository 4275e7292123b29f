import { readFile } from 'node:fs/promises';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { declaredCharset } from '../formats/html.js';
import { parseSrt } from '../formats/srt.js';
import { decodeText } from '../formats/text-encoding.js';
import { digestXml } from './canonical-xml.js';
import { PartHasher, digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// Text formats: the parsed content, not the bytes. For all of them the encoding and a byte order mark
// are not content (the text read is the same), nor is the line-ending convention (a sync client or
// git turning CRLF into LF changes no word). docs/content-digest.md has the table.

/** Lines of a text whatever its line endings. */
const lines = (text: string): string[] => text.split(/\r\n|\n|\r/);

/** Plain text: its lines (each a unit for `plan --why`). */
export async function digestTxt(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .txt file');
  const part = new PartHasher('text');
  lines(text).forEach((line, i) => {
    part.startUnit(`line ${i + 1}`);
    part.add(line, true);
    part.endUnit();
  });
  return digestOf('txt', [part.finish()]);
}

/** SubRip: every cue's number, timing and text lines (each cue a unit); blank lines between are layout. */
export async function digestSrt(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .srt file');
  const normal = lines(text).join('\n');
  const { parts, cues } = parseSrt(normal);
  const part = new PartHasher('subtitles');
  cues.forEach((cue, i) => {
    part.startUnit(`cue ${i + 1}`);
    const first = cue.textLines[0] ?? 0;
    // The cue's number and timing lines: the non-blank lines just before its text.
    for (let k = Math.max(0, first - 4); k < first; k += 2)
      if ((parts[k] ?? '').trim() !== '') part.add((parts[k] as string).trim());
    for (const k of cue.textLines) part.add(parts[k] as string, true);
    part.endUnit();
  });
  return digestOf('srt', [part.finish()]);
}

/**
 * HTML: the parsed tree (doctype, elements with their attributes in name order, text) without
 * comments: a comment is never shown, never translated, and editors and build tools rewrite them
 * (timestamps, generator notes). Each text is a unit for `plan --why`.
 */
export async function digestHtml(path: string): Promise<ContentDigest> {
  const buf = await readFile(path);
  const { text } = decodeText(buf, 'the .html file', declaredCharset(buf));
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
  visit(parse(text));
  return digestOf('html', [part.finish()]);
}

/** XLIFF: the XML in canonical form without comments; each trans-unit (1.2) or unit (2.x) a unit. */
export async function digestXliff(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .xliff file');
  const part = digestXml('xliff', text, {
    textElements: new Set(['source', 'target']),
    unit: (local, attrs) =>
      local === 'trans-unit' || local === 'unit' ? `unit ${attrs.get('id') ?? '?'}` : undefined,
  });
  return digestOf('xliff', [part]);
}
