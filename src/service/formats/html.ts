// HTML: text nodes and the title/alt/placeholder/aria-label attributes (plus meta description and
// button-like input values) are translated; script, style, code, pre, textarea and anything marked
// translate="no" or class="notranslate" are left alone. parse5 gives source offsets, so every byte
// outside a translated text or attribute value stays as it was. The encoding (BOM, meta charset) is
// kept; characters the encoding cannot hold become numeric character references.
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import type { FormatHandler } from './context.js';
import { checkAborted, languageTag } from './context.js';
import { canEncode, decodeText, encodeText } from './text-encoding.js';
import { applySplices, setAttribute, type Splice } from './xml.js';

const SKIP_ELEMENTS = new Set([
  'script',
  'style',
  'code',
  'pre',
  'textarea',
  'kbd',
  'samp',
  'var',
  'noscript',
  'svg',
  'math',
  'template',
]);
// Elements that sit inside a line of text: their text joins the surrounding segment.
const INLINE_ELEMENTS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'br',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'input',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
]);
const TEXT_ATTRIBUTES = new Set(['title', 'alt', 'placeholder', 'aria-label']);

/** The charset a document declares in its first 1024 bytes, if any. */
export function declaredCharset(buf: Buffer): string | undefined {
  const head = buf.subarray(0, 1024).toString('latin1');
  return /<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

function attr(el: T.Element, name: string): string | undefined {
  return el.attrs.find((a) => a.name === name)?.value;
}

function skipped(el: T.Element): boolean {
  return (
    SKIP_ELEMENTS.has(el.tagName) ||
    attr(el, 'translate')?.toLowerCase() === 'no' ||
    (attr(el, 'class') ?? '').split(/\s+/).includes('notranslate')
  );
}

/** Attributes of `el` whose values are text to translate. */
function translatableAttributes(el: T.Element): string[] {
  const names = el.attrs.map((a) => a.name).filter((n) => TEXT_ATTRIBUTES.has(n));
  if (el.tagName === 'meta' && /^(description|keywords)$/i.test(attr(el, 'name') ?? ''))
    names.push('content');
  if (el.tagName === 'input' && /^(submit|button|reset)$/i.test(attr(el, 'type') ?? '')) names.push('value');
  return names;
}

export const translateHtml: FormatHandler = async (input, output, ctx) => {
  const buf = await readFile(input.path);
  const decoded = decodeText(buf, `the .${input.ext} file`, declaredCharset(buf));
  const source = decoded.text;
  const doc = parse(source, { sourceCodeLocationInfo: true });
  const encodable = new Map<string, boolean>();
  const escapeChar = (ch: string): string => {
    let ok = encodable.get(ch);
    if (ok === undefined) encodable.set(ch, (ok = canEncode(ch, decoded.encoding)));
    return ok ? ch : `&#x${(ch.codePointAt(0) as number).toString(16).toUpperCase()};`;
  };
  const escape = (text: string, quote?: string): string =>
    text.replace(/[&<>\u00A0"']|[\u0080-\u{10FFFF}]/gu, (ch) => {
      if (ch === '&') return '&amp;';
      if (ch === '<') return '&lt;';
      if (ch === '>') return '&gt;';
      if (ch === '\u00A0') return '&nbsp;';
      if (ch === '"' || ch === "'") return ch === quote ? (ch === '"' ? '&quot;' : '&#39;') : ch;
      return escapeChar(ch);
    });

  const replacements: Splice[] = [];
  const translateAttributes = (el: T.Element): void => {
    const attrLocs = el.sourceCodeLocation?.attrs;
    for (const name of translatableAttributes(el)) {
      const loc = attrLocs?.[name];
      const value = attr(el, name) ?? '';
      if (!loc || value.trim() === '') continue;
      const raw = source.slice(loc.startOffset, loc.endOffset);
      const m = /^([^\s=]+\s*=\s*)(["']?)([\s\S]*?)\2$/.exec(raw);
      if (!m) continue;
      const quote = m[2] || '"';
      const translated = escape(ctx.translator.translateText(value), quote);
      replacements.push({
        start: loc.startOffset,
        end: loc.endOffset,
        text: `${m[1]}${quote}${translated}${quote}`,
      });
    }
  };

  // A run of inline content (text and inline elements) is one segment; each text node is a piece.
  type Piece = { node: T.TextNode; fixed: false } | { text: string; fixed: true };
  const flush = (run: Piece[]): void => {
    if (!run.some((p) => !p.fixed && p.node.value.trim() !== '')) return;
    const texts = run.map((p) => (p.fixed ? p.text : p.node.value));
    const out = ctx.translator.translate(
      texts,
      run.map((p) => p.fixed),
    );
    run.forEach((p, i) => {
      const loc = p.fixed ? undefined : p.node.sourceCodeLocation;
      if (loc && out[i] !== texts[i]) {
        replacements.push({ start: loc.startOffset, end: loc.endOffset, text: escape(out[i] as string) });
      }
    });
  };
  const textContent = (node: T.ParentNode): string =>
    node.childNodes
      .map((c) =>
        c.nodeName === '#text' ? (c as T.TextNode).value : 'childNodes' in c ? textContent(c) : '',
      )
      .join('');
  let visited = 0;
  const visit = (node: T.ParentNode, run: Piece[]): void => {
    if (++visited % 2000 === 0) checkAborted(ctx);
    for (const child of node.childNodes) {
      if (child.nodeName === '#text') {
        const text = child as T.TextNode;
        run.push(text.sourceCodeLocation ? { node: text, fixed: false } : { text: text.value, fixed: true });
        continue;
      }
      if (!('tagName' in child)) continue;
      const el = child as T.Element;
      if (!skipped(el)) translateAttributes(el);
      if (INLINE_ELEMENTS.has(el.tagName)) {
        if (skipped(el) || el.tagName === 'br')
          run.push({ text: el.tagName === 'br' ? '\n' : textContent(el), fixed: true });
        else visit(el, run);
        continue;
      }
      // a block element ends the segment (also a block inside an inline element, e.g. <div> in <a>)
      flush(run.splice(0));
      if (!skipped(el)) {
        const inner: Piece[] = [];
        visit(el, inner);
        flush(inner);
      }
    }
  };
  const top: Piece[] = [];
  visit(doc, top);
  flush(top);

  // The document's language becomes the target's (<html lang>), unless a translated attribute of
  // the <html> tag itself is being replaced.
  const html = doc.childNodes.find((c) => 'tagName' in c && c.tagName === 'html') as T.Element | undefined;
  const tagLoc = html?.sourceCodeLocation?.startTag;
  if (tagLoc && !replacements.some((r) => r.start < tagLoc.endOffset && r.end > tagLoc.startOffset))
    replacements.push({
      start: tagLoc.startOffset,
      end: tagLoc.endOffset,
      text: setAttribute(
        source.slice(tagLoc.startOffset, tagLoc.endOffset),
        'lang',
        languageTag(ctx.translator.targetLang),
      ),
    });
  const out = applySplices(source, replacements);
  await writeFile(output.path, encodeText(out, decoded));
};
