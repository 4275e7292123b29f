// Which items of an old and a new list are the same: a longest common subsequence after the common
// start and end are set aside. The review page pairs segments and words with it (src/review), the
// segment path pairs a reviewed segment with the one its source became (src/sync/reviewed-segments.ts).

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
