import { distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `word` when it is close enough to be a likely typo, else undefined.
 * Words of up to 3 letters (language codes) only match case-insensitively: 'pt' is not a typo of 'it'.
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const allowed = word.length <= 3 ? 0 : Math.max(2, Math.floor(word.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** " (did you mean 'x'?)" or "". */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const n = nearest(word, candidates);
  return n !== undefined && n !== word ? ` (did you mean '${n}'?)` : '';
}
