import { decodeXml, localName, tokenize } from '../formats/xml.js';
import { PartHasher, type HashedPart } from './hash.js';

// An XML part as the digest reads it: elements with their attributes in name order, and text, in
// document order. Left out: the XML declaration, comments, processing instructions, whitespace
// between elements (outside text elements), how a character is written (entity, CDATA, quotes), and
// what the format's rules drop (revision ids, proofing marks, view state: see docs/content-digest.md).

export interface XmlDigestRules {
  /** An attribute left out (by its qualified and local name, and its element's local name). */
  dropAttribute?(qname: string, local: string, element: string): boolean;
  /** An element left out with everything in it (by local name and its attributes). */
  dropElement?(local: string, attrs: ReadonlyMap<string, string>): boolean;
  /** Elements whose whitespace-only text is content (w:t, a:t, t): elsewhere it is layout. */
  textElements: ReadonlySet<string>;
  /** Elements that are one unit for `plan --why` (paragraph, cell), and how each is called. */
  unit?(local: string, attrs: ReadonlyMap<string, string>, index: number): string | undefined;
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attributesOf(tag: string, nameLength: number): Map<string, string> {
  const attrs = new Map<string, string>();
  const body = tag.slice(1 + nameLength);
  for (const m of body.matchAll(ATTRIBUTE)) attrs.set(m[1] as string, decodeXml(m[2] ?? m[3] ?? ''));
  return attrs;
}

/** The canonical content of an XML part, hashed (with its units' hashes for `plan --why`). */
export function digestXml(name: string, xml: string, rules: XmlDigestRules): HashedPart {
  const part = new PartHasher(name);
  /** Open elements: local name, whether it is a unit, whether it keeps whitespace. */
  const stack: Array<{ local: string; unit: boolean; text: boolean }> = [];
  let dropDepth = 0;
  let textDepth = 0;
  let units = 0;
  for (const t of tokenize(xml, name)) {
    if (t.kind === 'open') {
      const raw = xml.slice(t.start, t.end);
      const local = localName(t.name);
      if (dropDepth > 0) {
        if (!t.selfClosing) dropDepth++;
        continue;
      }
      const attrs = attributesOf(raw, t.name.length);
      if (rules.dropElement?.(local, attrs)) {
        if (!t.selfClosing) dropDepth = 1;
        continue;
      }
      const kept = [...attrs]
        .filter(([q]) => !rules.dropAttribute?.(q, localName(q), local))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([q, v]) => `${q}=${JSON.stringify(v)}`);
      const label = rules.unit?.(local, attrs, units + 1);
      if (label !== undefined) {
        units++;
        part.startUnit(label);
      }
      part.add(`<${t.name}${kept.length ? ' ' + kept.join(' ') : ''}>`);
      const text = rules.textElements.has(local);
      if (t.selfClosing) {
        part.add(`</${t.name}>`);
        if (label !== undefined) part.endUnit();
      } else {
        stack.push({ local, unit: label !== undefined, text });
        if (text) textDepth++;
      }
    } else if (t.kind === 'close') {
      if (dropDepth > 0) {
        dropDepth--;
        continue;
      }
      const top = stack.pop();
      part.add(`</${t.name}>`);
      if (top?.text) textDepth--;
      if (top?.unit) part.endUnit();
    } else if (dropDepth === 0 && (t.kind === 'text' || t.kind === 'cdata')) {
      const raw = xml.slice(t.start, t.end);
      const value = t.kind === 'cdata' ? raw.slice(9, -3) : decodeXml(raw);
      if (textDepth === 0 && value.trim() === '') continue;
      part.add(`#${value}`, textDepth > 0);
    }
  }
  return part.finish();
}
