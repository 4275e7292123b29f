// Pseudo-localisation: a deterministic, visibly changed, ~30% longer rendering of a segment for one
// target language. Works on masked text (see mask.ts): mask characters are never changed.

/** Accented variants per letter (Latin-1 and Latin Extended-A only, so common fonts have them). */
const VARIANTS: Record<string, string> = {
  a: 'àáâäåāăą',
  c: 'çćĉċč',
  d: 'ďđ',
  e: 'èéêëēĕėęě',
  g: 'ĝğġģ',
  h: 'ĥħ',
  i: 'ìíîïĩīĭį',
  j: 'ĵ',
  k: 'ķ',
  l: 'ĺļľł',
  n: 'ñńņň',
  o: 'òóôöõøōŏő',
  r: 'ŕŗř',
  s: 'śŝşš',
  t: 'ţťŧ',
  u: 'ùúûüũūŭůűų',
  w: 'ŵ',
  y: 'ýÿŷ',
  z: 'źżž',
};

/** FNV-1a hash of a string: the same language always picks the same variants. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const letterMaps = new Map<string, Map<string, string>>();

/** Letter substitution table for one target language. */
function letterMap(lang: string): Map<string, string> {
  let map = letterMaps.get(lang);
  if (map) return map;
  map = new Map();
  const h = hash(lang);
  let i = 0;
  for (const [letter, variants] of Object.entries(VARIANTS)) {
    const chars = [...variants];
    const lower = chars[(h + i * 7) % chars.length] as string;
    map.set(letter, lower);
    const upper = lower.toUpperCase();
    map.set(letter.toUpperCase(), upper.length === 1 ? upper : letter.toUpperCase());
    i++;
  }
  letterMaps.set(lang, map);
  return map;
}

/** The visible tag in front of every pseudo-localised segment, e.g. "[de] ". */
export function pseudoTag(lang: string): string {
  return `[${lang}] `;
}

const PAD = '~';

/**
 * Pseudo-localises masked text: letters are substituted, the tag goes after leading whitespace and
 * piece boundaries (`isBoundary`), and a padding of "~" before trailing ones so that the text grows by
 * about 30%. `sourceLength` is the length of the unmasked source.
 */
export function pseudoLocalise(
  masked: string,
  lang: string,
  sourceLength: number,
  isBoundary: (ch: string) => boolean = () => false,
): string {
  if (!/\p{L}/u.test(masked)) return masked; // nothing to translate: numbers, placeholders, URLs only
  const map = letterMap(lang);
  let body = '';
  for (const ch of masked) body += map.get(ch) ?? ch;
  const isEdge = (ch: string): boolean => /\s/.test(ch) || isBoundary(ch);
  let start = 0;
  while (start < body.length && isEdge(body[start] as string)) start++;
  let end = body.length;
  while (end > start && isEdge(body[end - 1] as string)) end--;
  const tag = pseudoTag(lang);
  const pad = Math.max(1, Math.ceil(sourceLength * 0.3) - tag.length - 1);
  return body.slice(0, start) + tag + body.slice(start, end) + ' ' + PAD.repeat(pad) + body.slice(end);
}
