import { escapeXml } from '../documents/formats/xml.js';
import { inlineOfTagged } from './inline.js';

// TMX 1.4b as CAT tools (Trados, memoQ, OmegaT) and translate-toolkit read it, written a unit at a
// time. The pipeline's inline tags become TMX inline elements: a formatted run <g id="i"> is
// <hi x="i">, a code <x id="i"/> is <ph x="i"/> (its native code stays in the document; the memory
// does not keep it). Reading the file back gives the very same tagged segments.

export interface TmxHeaderFields {
  /** A language (en-US) or *all* when the units have several source languages. */
  srclang: string;
  creationtool: string;
  creationtoolversion: string;
  /** Now, as TMX writes dates. */
  creationdate: string;
}

export interface TmxUnitFields {
  srclang: string;
  targetLang: string;
  source: string;
  translation: string;
  creationdate: string;
  changedate: string;
  props: ReadonlyArray<[string, string]>;
}

/** An ISO 8601 time (or anything Date reads) as a TMX date: 20240131T120000Z. */
export function tmxDateOf(at: string | Date): string {
  const d =
    typeof at === 'string' ? new Date(at.includes('T') || at.includes(' ') ? at.replace(' ', 'T') : at) : at;
  const iso = Number.isNaN(d.getTime()) ? new Date().toISOString() : d.toISOString();
  return `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

/** A tagged segment as TMX <seg> content. */
export function tmxInline(tagged: string): string {
  let out = '';
  for (const item of inlineOfTagged(tagged)) {
    if (item.t === 'text') out += escapeXml(item.text);
    else if (item.t === 'open') out += `<hi x="${item.id}">`;
    else if (item.t === 'close') out += '</hi>';
    else if (item.t === 'code') out += `<ph x="${item.id}"/>`;
  }
  return out;
}

const attr = (s: string) => escapeXml(s, true);

export function tmxStart(h: TmxHeaderFields): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<!DOCTYPE tmx SYSTEM "tmx14.dtd">\n' +
    '<tmx version="1.4">\n' +
    `  <header creationtool="${attr(h.creationtool)}" creationtoolversion="${attr(h.creationtoolversion)}"` +
    ` segtype="paragraph" o-tmf="locsync" adminlang="en" srclang="${attr(h.srclang)}" datatype="xml"` +
    ` creationdate="${h.creationdate}"/>\n` +
    '  <body>\n'
  );
}

export function tmxUnit(u: TmxUnitFields): string {
  const props = u.props.map(([t, v]) => `      <prop type="${attr(t)}">${escapeXml(v)}</prop>\n`).join('');
  const tuv = (lang: string, tagged: string) =>
    `      <tuv xml:lang="${attr(lang)}">\n        <seg>${tmxInline(tagged)}</seg>\n      </tuv>\n`;
  return (
    `    <tu creationdate="${u.creationdate}" changedate="${u.changedate}" srclang="${attr(u.srclang)}">\n` +
    props +
    tuv(u.srclang, u.source) +
    tuv(u.targetLang, u.translation) +
    '    </tu>\n'
  );
}

export const TMX_END = '  </body>\n</tmx>\n';
