import { escapeXml } from '../documents/formats/xml.js';
import { exchangeLanguage } from '../memory/languages.js';
import { inlineOfTagged } from '../memory/inline.js';
import type { RoundTripDocument, RoundTripUnit } from './units.js';

// XLIFF 1.2 as CAT tools (Trados, memoQ, Phrase, OmegaT) and translate-toolkit read it: one <file>
// per source document and target language, one <trans-unit> per segment. The pipeline's inline
// tags map onto XLIFF's own: a formatted run <g id="i">, a code <x id="i"/>; the native code stays
// in the document, so a translator can move a tag but not break it.

const attr = (s: string) => escapeXml(s, true);

/** A tagged segment as XLIFF 1.2 inline content. */
export function xliffInline(tagged: string): string {
  let out = '';
  for (const item of inlineOfTagged(tagged)) {
    if (item.t === 'text') out += escapeXml(item.text);
    else if (item.t === 'open') out += `<g id="${item.id}">`;
    else if (item.t === 'close') out += '</g>';
    else if (item.t === 'code') out += `<x id="${item.id}"/>`;
  }
  return out;
}

/** The state of a unit: machine wording needs review, a person's is signed off. */
export type Origin = 'service' | 'reviewed' | 'imported' | undefined;

function stateOf(u: RoundTripUnit, origin: Origin): string {
  if (u.target === undefined) return 'needs-translation';
  if (origin === 'reviewed') return 'signed-off';
  if (origin === 'imported') return 'translated';
  return 'needs-review-translation';
}

function unit(d: RoundTripDocument, u: RoundTripUnit, origin: Origin): string {
  const target =
    u.target === undefined
      ? ''
      : `        <target state="${stateOf(u, origin)}">${xliffInline(u.target)}</target>\n`;
  return (
    `      <trans-unit id="${u.id}" resname="${attr(`${d.source}#${u.index}`)}">\n` +
    `        <source>${xliffInline(u.source)}</source>\n` +
    target +
    `        <note from="locsync">${escapeXml(`${d.source}, segment ${u.index} (${u.where})`)}</note>\n` +
    '      </trans-unit>\n'
  );
}

export function xliffFile(
  docs: readonly RoundTripDocument[],
  originOf: (d: RoundTripDocument, u: RoundTripUnit) => Origin,
  keep: (d: RoundTripDocument, u: RoundTripUnit) => boolean,
): string {
  let out =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n';
  for (const d of docs) {
    out +=
      `  <file original="${attr(d.source)}" source-language="${attr(exchangeLanguage(d.sourceLang ?? 'x-detected'))}"` +
      ` target-language="${attr(exchangeLanguage(d.targetLang))}" datatype="plaintext">\n` +
      '    <body>\n';
    for (const u of d.units) if (keep(d, u)) out += unit(d, u, originOf(d, u));
    out += '    </body>\n  </file>\n';
  }
  return out + '</xliff>\n';
}
