// Sequence comparison for the review page: which items of an old and a new list are the same (a
// longest common subsequence after the common start and end are set aside), used for whole segments
// (which paragraph became which) and for the words of one segment (what a reviewer reads as changed).

/** Cells of the comparison table beyond which the middle is paired by position (bounded time and memory). */
const MAX_CELLS = 4_000_000;

/** Pairs [i, j] of equal items, increasing in both lists. */
export function commonPairs<T>(
  a: readonly T[],
  b: readonly T[],
  eq: (x: T, y: T) => boolean,
): Array<[number, number]> {
  let start = 0;
  while (start < a.length && start < b.length && eq(a[start]!, b[start]!)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && eq(a[endA - 1]!, b[endB - 1]!)) {
    endA--;
    endB--;
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < start; i++) pairs.push([i, i]);
  const n = endA - start;
  const m = endB - start;
  if (n > 0 && m > 0 && n * m <= MAX_CELLS) {
    // lengths[i][j]: LCS of a[start+i..endA) and b[start+j..endB), one flat array.
    const w = m + 1;
    const len = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        len[i * w + j] = eq(a[start + i]!, b[start + j]!)
          ? len[(i + 1) * w + j + 1]! + 1
          : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (eq(a[start + i]!, b[start + j]!)) {
        pairs.push([start + i, start + j]);
        i++;
        j++;
      } else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) i++;
      else j++;
    }
  }
  for (let k = 0; k < a.length - endA; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

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
