import { escapeXml } from '../documents/formats/xml.js';
import { exchangeLanguage } from '../memory/languages.js';
import { inlineOfTagged } from '../memory/inline.js';
import { EXTRADATA_TARGET, LOCSYNC_NS, targetDigest } from './digest.js';
import type { RoundTripDocument, RoundTripUnit } from './units.js';

// XLIFF 1.2 as CAT tools (Trados, memoQ, Phrase, OmegaT) and translate-toolkit read it: one <file>
// per source document and target language, one <trans-unit> per segment. The pipeline's inline
// tags map onto XLIFF's own: a formatted run <g id="i">, a code <x id="i"/>; the native code stays
// in the document, so a translator can move a tag but not break it.

const attr = (s: string) => escapeXml(s, true);

/** The versions written: 1.2 (<g>/<x>) and 2.1 (<pc>/<ph>). */
export type XliffVersion = '1.2' | '2.1';

/** The inline elements of each version: a formatted run, its end, a code. */
const INLINE: Record<XliffVersion, { open: string; close: string; code: string }> = {
  '1.2': { open: 'g', close: 'g', code: 'x' },
  '2.1': { open: 'pc', close: 'pc', code: 'ph' },
};

/** A tagged segment as XLIFF inline content (of 1.2 unless `version`). */
export function xliffInline(tagged: string, version: XliffVersion = '1.2'): string {
  const e = INLINE[version];
  let out = '';
  for (const item of inlineOfTagged(tagged)) {
    if (item.t === 'text') out += escapeXml(item.text);
    else if (item.t === 'open') out += `<${e.open} id="${item.id}">`;
    else if (item.t === 'close') out += `</${e.close}>`;
    else if (item.t === 'code') out += `<${e.code} id="${item.id}"/>`;
  }
  return out;
}

/** An inline tag as a version writes it, for messages. */
export const inlineTag = (kind: 'open' | 'code', id: string, version: XliffVersion): string =>
  kind === 'open' ? `<${INLINE[version].open} id="${id}">` : `<${INLINE[version].code} id="${id}"/>`;

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
  const extradata = u.target === undefined ? '' : ` extradata="${EXTRADATA_TARGET}${targetDigest(u.target)}"`;
  return (
    `      <trans-unit id="${u.id}" resname="${attr(`${d.source}#${u.index}`)}"${extradata}>\n` +
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

/** XLIFF 2.x segment states: machine wording is translated, a person's final. */
function state21(u: RoundTripUnit, origin: Origin): string {
  if (u.target === undefined) return 'initial';
  return origin === 'reviewed' ? 'final' : 'translated';
}

/**
 * XLIFF 2.1 (urn:oasis:names:tc:xliff:document:2.0): one source and one target language per file
 * (the caller gives documents of one pair), a <file> per document, a <unit> per segment with its
 * place as a note; formatted runs are <pc id>, codes <ph id/>.
 */
export function xliff21File(
  docs: readonly RoundTripDocument[],
  originOf: (d: RoundTripDocument, u: RoundTripUnit) => Origin,
  keep: (d: RoundTripDocument, u: RoundTripUnit) => boolean,
): string {
  const first = docs[0];
  const src = exchangeLanguage(first?.sourceLang ?? 'x-detected');
  const trg = first ? ` trgLang="${attr(exchangeLanguage(first.targetLang))}"` : '';
  let out =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" xmlns:ls="${LOCSYNC_NS}" version="2.1" srcLang="${attr(src)}"${trg}>\n`;
  docs.forEach((d, i) => {
    const units = d.units.filter((u) => keep(d, u));
    // A 2.x <file> holds at least one unit.
    if (units.length === 0) return;
    out += `  <file id="f${i + 1}" original="${attr(d.source)}">\n`;
    for (const u of units) {
      const target =
        u.target === undefined ? '' : `        <target>${xliffInline(u.target, '2.1')}</target>\n`;
      const digest = u.target === undefined ? '' : ` ls:target="${targetDigest(u.target)}"`;
      out +=
        `    <unit id="${u.id}" name="${attr(`${d.source}#${u.index}`)}"${digest}>\n` +
        `      <notes><note category="location">${escapeXml(`${d.source}, segment ${u.index} (${u.where})`)}</note></notes>\n` +
        `      <segment state="${state21(u, originOf(d, u))}">\n` +
        `        <source>${xliffInline(u.source, '2.1')}</source>\n` +
        target +
        '      </segment>\n' +
        '    </unit>\n';
    }
    out += '  </file>\n';
  });
  return out + '</xliff>\n';
}
