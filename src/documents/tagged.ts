// A segment as one string with its inline formatting as tags (XLIFF's inline-code convention), for a
// translation service that takes markup (DeepL's tag_handling=xml), and the translation back into
// the segment's pieces:
//   a segment of one text piece        ->  its text, escaped
//   text piece i of several            ->  <g id="i">text</g>
//   code piece i                       ->  <x id="i"/>
import type { Piece } from './segment.js';
import { decodeXml, escapeXml } from './formats/xml.js';

/** The segment's pieces as one tagged string. */
export function taggedText(segment: { pieces: readonly Piece[] }): string {
  const { pieces } = segment;
  if (pieces.length === 1 && !pieces[0]?.code) return escapeXml(pieces[0]?.text ?? '');
  return pieces.map((p, i) => (p.code ? `<x id="${i}"/>` : `<g id="${i}">${escapeXml(p.text)}</g>`)).join('');
}

const TAG = /<g id="(\d+)">|<\/g>|<x id="(\d+)"\s*\/>/g;

/**
 * One text per piece of `segment` from a translated tagged string. Text a translation moved outside
 * every <g> joins the text piece before it (the first text piece when none is before it); a piece
 * whose tag went missing is empty; code pieces are the source's.
 */
export function fromTaggedText(tagged: string, segment: { pieces: readonly Piece[] }): string[] {
  const { pieces } = segment;
  const out = pieces.map((p) => (p.code ? p.text : ''));
  const firstText = pieces.findIndex((p) => !p.code);
  if (pieces.length === 1 && firstText === 0) return [decodeXml(tagged)];
  let inside: number | undefined;
  let last = firstText;
  let pos = 0;
  const put = (text: string): void => {
    const to = inside ?? last;
    if (text && to >= 0 && !pieces[to]?.code) out[to] += decodeXml(text);
  };
  for (const m of tagged.matchAll(TAG)) {
    put(tagged.slice(pos, m.index));
    pos = m.index + m[0].length;
    if (m[1] !== undefined) {
      const i = Number(m[1]);
      inside = i < pieces.length && !pieces[i]?.code ? i : undefined;
      if (inside !== undefined) last = inside;
    } else if (m[0] === '</g>') inside = undefined;
  }
  put(tagged.slice(pos));
  return out;
}

const PIECE = /<g id="(\d+)">([^<>]*)<\/g>|<x id="(\d+)"\s*\/>/y;

/**
 * A string in taggedText's form read back into pieces without its segment (a service translating
 * tagged text piece by piece, as its document path translates the segment): text pieces with their
 * text, code pieces empty (their text is not in the string). Undefined when the string is not in
 * that form (other markup).
 */
export function piecesOfTaggedText(tagged: string): Piece[] | undefined {
  if (!/[<>]/.test(tagged)) return [{ text: decodeXml(tagged) }];
  const pieces: Piece[] = [];
  let pos = 0;
  while (pos < tagged.length) {
    PIECE.lastIndex = pos;
    const m = PIECE.exec(tagged);
    if (!m || Number(m[1] ?? m[3]) !== pieces.length) return undefined;
    pieces.push(m[1] !== undefined ? { text: decodeXml(m[2] ?? '') } : { text: '', code: true });
    pos = PIECE.lastIndex;
  }
  return pieces;
}

const ANY_TAG = /<g\b[^<>]*>|<\/g\s*>|<x\b[^<>]*\/?>/g;
const TAG_ID = /\bid="(\d+)"/;

/**
 * What a tagged translation broke of its segment's inline structure, for a writer that must refuse
 * it (undefined: nothing): a code piece (a placeholder, a tag, an ICU message's structure) or a text
 * piece's tag missing or repeated, an id the segment does not have, a <g> left open or closed twice,
 * or the text between two code pieces (`<b>…</b>`, `%1$d of %2$d`) emptied. The writer puts code
 * pieces back as the source has them: without this, a translation that lost its tags is written
 * with the text first and every placeholder after it, "moved out of its text".
 */
export function taggedStructureProblem(
  tagged: string,
  segment: { pieces: readonly Piece[] },
): string | undefined {
  const { pieces } = segment;
  if (pieces.length === 1 && !pieces[0]?.code) return undefined;
  const seen = new Map<number, number>();
  let open: number | undefined;
  for (const m of tagged.matchAll(ANY_TAG)) {
    const tag = m[0];
    if (tag.startsWith('</')) {
      if (open === undefined) return `an inline tag is closed that was never opened (${tag})`;
      open = undefined;
      continue;
    }
    const id = Number(TAG_ID.exec(tag)?.[1] ?? NaN);
    const piece = pieces[id];
    const isCode = tag.startsWith('<x');
    if (!piece || !!piece.code !== isCode) return `an inline tag the source does not have (${tag})`;
    if (open !== undefined) return `inline tags are nested or left open (${tag} inside <g id="${open}">)`;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    if (!isCode) open = id;
  }
  if (open !== undefined) return `an inline tag is left open (<g id="${open}">)`;
  const wrong = pieces.flatMap((p, i) => {
    const n = seen.get(i) ?? 0;
    return n === 1
      ? []
      : [`${p.code ? `"${p.text}"` : `text piece ${i}`} ${n === 0 ? 'missing' : `${n} times`}`];
  });
  if (wrong.length > 0) return `placeholders or inline tags ${wrong.join(', ')}`;
  const texts = fromTaggedText(tagged, segment);
  const emptied = pieces.findIndex(
    (p, i) =>
      !p.code &&
      /\p{L}/u.test(p.text) &&
      !!pieces[i - 1]?.code &&
      !!pieces[i + 1]?.code &&
      (texts[i] ?? '').trim() === '',
  );
  if (emptied !== -1)
    return `the text between "${pieces[emptied - 1]?.text}" and "${pieces[emptied + 1]?.text}" is emptied`;
  return undefined;
}
