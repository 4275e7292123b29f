// A small XML tokenizer with source offsets, so that translated documents can be rebuilt by splicing
// new text into the original string: every byte outside a translated text stays as it was.
// Well-formedness is checked separately with saxes (assertWellFormed).
import { SaxesParser } from 'saxes';
import { DocumentFormatError } from '../errors.js';

export type XmlToken =
  | { kind: 'open'; name: string; start: number; end: number; selfClosing: boolean }
  | { kind: 'close'; name: string; start: number; end: number }
  | { kind: 'text'; start: number; end: number }
  | { kind: 'cdata'; start: number; end: number }
  | { kind: 'other'; start: number; end: number };

function bad(what: string, offset: number): DocumentFormatError {
  return new DocumentFormatError(`${what}: invalid XML near offset ${offset}`);
}

/** Tokens of `xml` in document order (comments, processing instructions and DOCTYPE are "other"). */
export function* tokenize(xml: string, what = 'XML'): Generator<XmlToken> {
  let pos = 0;
  const n = xml.length;
  while (pos < n) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) {
      yield { kind: 'text', start: pos, end: n };
      return;
    }
    if (lt > pos) yield { kind: 'text', start: pos, end: lt };
    const until = (marker: string, from: number): number => {
      const i = xml.indexOf(marker, from);
      if (i === -1) throw bad(what, lt);
      return i + marker.length;
    };
    if (xml.startsWith('<!--', lt)) {
      pos = until('-->', lt + 4);
      yield { kind: 'other', start: lt, end: pos };
    } else if (xml.startsWith('<![CDATA[', lt)) {
      pos = until(']]>', lt + 9);
      yield { kind: 'cdata', start: lt, end: pos };
    } else if (xml.startsWith('<?', lt)) {
      pos = until('?>', lt + 2);
      yield { kind: 'other', start: lt, end: pos };
    } else if (xml.startsWith('<!', lt)) {
      // DOCTYPE, possibly with an internal subset in brackets
      let i = lt + 2;
      let depth = 0;
      while (i < n && !(xml[i] === '>' && depth === 0)) {
        if (xml[i] === '[') depth++;
        else if (xml[i] === ']') depth--;
        i++;
      }
      if (i >= n) throw bad(what, lt);
      pos = i + 1;
      yield { kind: 'other', start: lt, end: pos };
    } else {
      // a start or end tag: scan to '>' outside quoted attribute values
      let i = lt + 1;
      let quote = '';
      while (i < n) {
        const c = xml[i];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
        i++;
      }
      if (i >= n) throw bad(what, lt);
      pos = i + 1;
      if (xml[lt + 1] === '/') {
        yield { kind: 'close', name: xml.slice(lt + 2, i).trim(), start: lt, end: pos };
      } else {
        const name = /^[^\s/>]+/.exec(xml.slice(lt + 1, i))?.[0] ?? '';
        if (!name) throw bad(what, lt);
        yield { kind: 'open', name, start: lt, end: pos, selfClosing: xml[i - 1] === '/' };
      }
    }
  }
}

/** The local part of a qualified name: w:t -> t. */
export function localName(name: string): string {
  const i = name.indexOf(':');
  return i === -1 ? name : name.slice(i + 1);
}

/** Value of an attribute in a start tag's source text. */
export function attribute(tag: string, name: string): string | undefined {
  const re = new RegExp(`\\s${name.replace(/[.:-]/g, '\\$&')}\\s*=\\s*("([^"]*)"|'([^']*)')`);
  const m = re.exec(tag);
  return m ? decodeXml(m[2] ?? m[3] ?? '') : undefined;
}

/** A start tag with one attribute set (added before the end of the tag when missing). */
export function setAttribute(tag: string, name: string, value: string): string {
  const re = new RegExp(`(\\s${name.replace(/[.:-]/g, '\\$&')}\\s*=\\s*)("[^"]*"|'[^']*')`);
  const quoted = `"${escapeXml(value, true)}"`;
  if (re.test(tag)) return tag.replace(re, (_m, lead: string) => `${lead}${quoted}`);
  const close = tag.endsWith('/>') ? tag.length - 2 : tag.length - 1;
  return `${tag.slice(0, close).replace(/\s*$/, '')} ${name}=${quoted}${tag.slice(close)}`;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9A-Fa-f]+|#\d+|[A-Za-z]+);/g, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return NAMED[e] ?? m;
  });
}

export function escapeXml(s: string, attr = false): string {
  const out = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attr ? out.replace(/"/g, '&quot;') : out;
}

/** Throws DocumentFormatError when `xml` is not well-formed. */
export function assertWellFormed(xml: string, what: string): void {
  const parser = new SaxesParser({ xmlns: false });
  let error: Error | undefined;
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.write(xml).close();
  if (error) throw new DocumentFormatError(`${what} is not well-formed XML: ${error.message}`);
}

export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping splices (in any order) to `source`. */
export function applySplices(source: string, splices: Splice[]): string {
  splices.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let pos = 0;
  for (const s of splices) {
    if (s.start < pos) continue;
    parts.push(source.slice(pos, s.start), s.text);
    pos = s.end;
  }
  parts.push(source.slice(pos));
  return parts.join('');
}
