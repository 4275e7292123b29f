import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { SAMPLES, checkSegment, isPseudo, phrasebook, workdir, type Workdir } from './helpers.js';

let w: Workdir;
beforeAll(async () => (w = await workdir()));
afterAll(() => w.cleanup());

interface Shape {
  tags: string[];
  /** Text content of each element that holds text directly, with its tag and translate attribute. */
  blocks: Array<{ tag: string; text: string; translate: boolean }>;
  attrs: Array<{ name: string; value: string }>;
}

const textOf = (node: T.ParentNode): string =>
  node.childNodes
    .map((c) => (c.nodeName === '#text' ? (c as T.TextNode).value : 'childNodes' in c ? textOf(c) : ''))
    .join('');

/** Element names in document order, text of the blocks (elements with direct text), attributes. */
function shape(html: string): Shape {
  const s: Shape = { tags: [], blocks: [], attrs: [] };
  const inline = new Set(['a', 'code', 'b', 'i', 'em', 'strong', 'span']);
  const walk = (node: T.ParentNode): void => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      s.tags.push(child.tagName);
      for (const a of child.attrs) s.attrs.push({ name: a.name, value: a.value });
      const direct = child.childNodes.some((c) => c.nodeName === '#text' && (c as T.TextNode).value.trim());
      if (direct && !inline.has(child.tagName)) {
        const translate = !child.attrs.some((a) => a.name === 'translate' && a.value === 'no');
        s.blocks.push({ tag: child.tagName, text: textOf(child), translate });
      }
      walk(child);
    }
  };
  walk(parse(html));
  return s;
}

describe('html', () => {
  it('translates text and title/alt/placeholder attributes; script, style, code, pre stay untouched', async () => {
    const src = join(SAMPLES, 'web', 'index.html');
    const source = await readFile(src, 'utf8');
    const { out } = await w.translate(src, 'de');
    const result = await readFile(out, 'utf8');
    const a = shape(source);
    const b = shape(result);
    expect(b.tags).toEqual(a.tags);
    expect(b.blocks).toHaveLength(a.blocks.length);
    const untouched = new Set(['script', 'style', 'pre']);
    a.blocks.forEach((block, i) => {
      const r = b.blocks[i]?.text as string;
      if (untouched.has(block.tag) || !block.translate) expect(r).toBe(block.text);
      else expect(checkSegment(block.text, r, 'de')).toBeUndefined();
    });
    // inline code inside a translated paragraph is kept
    expect(result).toContain('<code>locsync plan</code>');
    const attr = (s: Shape, name: string): string[] =>
      s.attrs.filter((x) => x.name === name).map((x) => x.value);
    expect(attr(b, 'alt')).toEqual([phrasebook.lookup('The locsync logo', 'de')]);
    expect(attr(b, 'placeholder')).toEqual([phrasebook.lookup('Search documents', 'de')]);
    expect(isPseudo(attr(b, 'title')[0] as string, 'de')).toBe(true);
    expect(attr(b, 'href')).toEqual(attr(a, 'href'));
    // the head up to <title> is byte-identical
    expect(result.slice(0, result.indexOf('<title>'))).toBe(source.slice(0, source.indexOf('<title>')));
  });

  it('keeps a Windows-1252 page in Windows-1252', async () => {
    const src = join(SAMPLES, 'web', 'cafe.htm');
    const { out } = await w.translate(src, 'fr');
    const bytes = await readFile(out);
    const text = iconv.decode(bytes, 'windows-1252');
    expect(text).toContain(`<title>${phrasebook.lookup('Café opening hours', 'fr')}</title>`);
    expect(bytes.includes(Buffer.from('Horaires du caf\xe9', 'latin1'))).toBe(true);
    // pseudo-localised letters outside Windows-1252 become character references
    expect(text).toMatch(/&#x[0-9A-F]+;/);
    expect(text).toContain('charset=windows-1252');
  });
});
