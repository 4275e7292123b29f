// HTML: text nodes and the title/alt/placeholder/aria-label attributes (plus meta description and
// button-like input values) are translated (segments of role attribute); script, style, code, pre, textarea and anything marked
// translate="no" or class="notranslate" are left alone. parse5 gives source offsets, so every byte
// outside a translated text or attribute value stays as it was. The encoding (BOM, meta charset) is
// kept; characters the encoding cannot hold become numeric character references.
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'parse5';
import type { DefaultTreeAdapterTypes as T } from 'parse5';
import { checkAborted } from '../limits.js';
import { languageTag } from '../language-tag.js';
import type { Piece, Segment, SegmentRole } from '../segment.js';
import { canEncode, decodeText, encodeText, type DecodedText } from './text-encoding.js';
import { applySplices, setAttribute, type Splice } from './xml.js';
import { openedDocument, SegmentList, textsOut, type FormatReader } from './reader.js';

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

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** An attribute value to translate, and how its source text is written (name=, quote). */
interface AttributeSlot {
  segment: Segment;
  start: number;
  end: number;
  lead: string;
  quote: string;
}

/** A run of inline content (text and inline elements): text nodes with their offsets, or code. */
interface RunSlot {
  segment: Segment;
  /** Source offsets of each text piece; undefined for code pieces and for text parse5 made up. */
  locs: Array<{ start: number; end: number } | undefined>;
}

/**
 * The HTML file's text as decoded (BOM, meta charset) and parse5's tree of it with source offsets:
 * the one parse of the reader and of the content digest (digest/html.ts).
 */
export async function parseHtmlFile(
  path: string,
  name: string,
): Promise<{ decoded: DecodedText; tree: T.Document }> {
  const buf = await readFile(path);
  const decoded = decodeText(buf, name, declaredCharset(buf));
  return { decoded, tree: parse(decoded.text, { sourceCodeLocationInfo: true }) };
}

export const readHtml: FormatReader = async (path, ctx) => {
  const { decoded, tree: doc } = await parseHtmlFile(path, `the .${ctx.format} file`);
  const source = decoded.text;
  const found = new SegmentList();
  const attributes: AttributeSlot[] = [];
  const runs: RunSlot[] = [];

  const readAttributes = (el: T.Element): void => {
    const attrLocs = el.sourceCodeLocation?.attrs;
    for (const name of translatableAttributes(el)) {
      const loc = attrLocs?.[name];
      const value = attr(el, name) ?? '';
      if (!loc || value.trim() === '') continue;
      const raw = source.slice(loc.startOffset, loc.endOffset);
      const m = /^([^\s=]+\s*=\s*)(["']?)([\s\S]*?)\2$/.exec(raw);
      if (!m) continue;
      const segment = found.add('attribute', `<${el.tagName} ${name}> at line ${loc.startLine}`, [
        { text: value },
      ]);
      if (segment)
        attributes.push({
          segment,
          start: loc.startOffset,
          end: loc.endOffset,
          lead: m[1] as string,
          quote: m[2] || '"',
        });
    }
  };

  // A run of inline content is one segment; each text node is a piece.
  type RunPiece = { node: T.TextNode; fixed: false } | { text: string; fixed: true };
  const flush = (run: RunPiece[], block: string): void => {
    const pieces: Piece[] = run.map((p) => (p.fixed ? { text: p.text, code: true } : { text: p.node.value }));
    const first = run.find((p): p is Extract<RunPiece, { fixed: false }> => !p.fixed);
    const line = first?.node.sourceCodeLocation?.startLine;
    const role: SegmentRole = HEADINGS.has(block) ? 'heading' : 'text';
    const segment = found.add(role, `<${block}>${line ? ` at line ${line}` : ''}`, pieces);
    if (!segment) return;
    runs.push({
      segment,
      locs: run.map((p) => {
        const loc = p.fixed ? undefined : p.node.sourceCodeLocation;
        return loc ? { start: loc.startOffset, end: loc.endOffset } : undefined;
      }),
    });
  };
  const textContent = (node: T.ParentNode): string =>
    node.childNodes
      .map((c) =>
        c.nodeName === '#text' ? (c as T.TextNode).value : 'childNodes' in c ? textContent(c) : '',
      )
      .join('');
  let visited = 0;
  const visit = (node: T.ParentNode, run: RunPiece[], block: string): void => {
    if (++visited % 2000 === 0) checkAborted(ctx);
    for (const child of node.childNodes) {
      if (child.nodeName === '#text') {
        const text = child as T.TextNode;
        run.push(text.sourceCodeLocation ? { node: text, fixed: false } : { text: text.value, fixed: true });
        continue;
      }
      if (!('tagName' in child)) continue;
      const el = child as T.Element;
      if (!skipped(el)) readAttributes(el);
      if (INLINE_ELEMENTS.has(el.tagName)) {
        if (skipped(el) || el.tagName === 'br')
          run.push({ text: el.tagName === 'br' ? '\n' : textContent(el), fixed: true });
        else visit(el, run, block);
        continue;
      }
      // a block element ends the segment (also a block inside an inline element, e.g. <div> in <a>)
      flush(run.splice(0), block);
      if (!skipped(el)) {
        const inner: RunPiece[] = [];
        visit(el, inner, el.tagName);
        flush(inner, el.tagName);
      }
    }
  };
  const top: RunPiece[] = [];
  visit(doc, top, 'body');
  flush(top, 'body');
  const html = doc.childNodes.find((c) => 'tagName' in c && c.tagName === 'html') as T.Element | undefined;
  const htmlTag = html?.sourceCodeLocation?.startTag;

  return openedDocument({
    format: ctx.format,
    keepsLayout: true,
    outputFormats: [ctx.format],
    segments: found.segments,
    async write(translationOf, out, opts) {
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
      for (const a of attributes) {
        const translated = translationOf(a.segment);
        if (!translated) continue;
        const text = escape(translated.join(''), a.quote);
        replacements.push({ start: a.start, end: a.end, text: `${a.lead}${a.quote}${text}${a.quote}` });
      }
      for (const r of runs) {
        const texts = textsOut(r.segment, r.segment.pieces, translationOf);
        r.locs.forEach((loc, i) => {
          if (loc && texts[i] !== r.segment.pieces[i]?.text)
            replacements.push({ start: loc.start, end: loc.end, text: escape(texts[i] as string) });
        });
      }
      // The document's language becomes the target's (<html lang>), unless a translated attribute of
      // the <html> tag itself is being replaced.
      if (htmlTag && !replacements.some((r) => r.start < htmlTag.endOffset && r.end > htmlTag.startOffset))
        replacements.push({
          start: htmlTag.startOffset,
          end: htmlTag.endOffset,
          text: setAttribute(
            source.slice(htmlTag.startOffset, htmlTag.endOffset),
            'lang',
            languageTag(opts.targetLang),
          ),
        });
      await writeFile(out.path, encodeText(applySplices(source, replacements), decoded));
    },
  });
};
