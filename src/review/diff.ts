// Sequence comparison for the review page: which items of an old and a new list are the same (a
// longest common subsequence after the common start and end are set aside), used for whole segments
// (which paragraph became which) and for the words of one segment (what a reviewer reads as changed).

import { commonPairs } from '../util/common-pairs.js';

export { commonPairs };

/**
 * One run of a word-level comparison: text both have, text only the old has, text only the new has.
 * `code`: a placeholder or inline code of the document ({name}, %s, <b>, `code`), one run each.
 */
export interface DiffPart {
  kind: 'same' | 'del' | 'ins';
  text: string;
  code?: true;
}

/** A segment's pieces as the comparison reads them (code pieces are compared whole). */
export type DiffPiece = { text: string; code?: true };

const WORDS = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Words, spaces and punctuation as separate tokens (Intl's word breaks: Japanese and Chinese too). */
export function tokens(text: string): string[] {
  return [...WORDS.segment(text)].map((s) => s.segment);
}

/** The tokens of a text or of a segment's pieces: each code piece one token. */
function pieceTokens(of: string | readonly DiffPiece[]): DiffPiece[] {
  if (typeof of === 'string') return tokens(of).map((text) => ({ text }));
  return of.flatMap((p) =>
    p.code ? [{ text: p.text, code: true as const }] : tokens(p.text).map((text) => ({ text })),
  );
}

/** `parts` with adjacent runs of one kind merged (after some kinds were left out); code stays apart. */
export function merged(parts: readonly DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (last?.kind === p.kind && !last.code && !p.code) last.text += p.text;
    else if (p.text) out.push({ ...p });
  }
  return out;
}

/** The word-level changes from `before` to `after`, adjacent runs of one kind merged. */
export function wordDiff(
  before: string | readonly DiffPiece[],
  after: string | readonly DiffPiece[],
): DiffPart[] {
  const a = pieceTokens(before);
  const b = pieceTokens(after);
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], t: DiffPiece) =>
    parts.push(t.code ? { kind, text: t.text, code: true } : { kind, text: t.text });
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [
    ...commonPairs(a, b, (x, y) => x.text === y.text && !x.code === !y.code),
    [a.length, b.length] as [number, number],
  ]) {
    while (i < pi) push('del', a[i++]!);
    while (j < pj) push('ins', b[j++]!);
    if (pi < a.length) push('same', a[pi]!);
    i = pi + 1;
    j = pj + 1;
  }
  return merged(parts);
}
