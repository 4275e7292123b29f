// Spreading a translation over the formatted pieces of its source. A phrasebook hit or a glossary term
// replaces text that may span several runs (a bold word, an italic phrase): the translation is cut
// at word boundaries into as many parts, each part about as long, relative to the whole, as its
// source piece was, so that every run keeps its formatting and some of the text. The service behind
// the spec aligns words; without a model, proportion is the closest honest guess.

const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(lang: string): Intl.Segmenter {
  let s = segmenters.get(lang);
  if (!s) {
    let locale = 'en';
    try {
      locale = Intl.getCanonicalLocales(lang)[0] ?? 'en';
    } catch {
      // an unknown tag: the default word rules
    }
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(lang, s);
  }
  return s;
}

/**
 * The words of `text`, each with the spaces and punctuation after it (text before the first word is
 * part of the first). Joined, they are `text`.
 */
export function wordTokens(text: string, lang = 'en'): string[] {
  const tokens: string[] = [];
  let lead = '';
  for (const seg of segmenter(lang).segment(text)) {
    if (seg.isWordLike) tokens.push((tokens.length ? '' : lead) + seg.segment);
    else if (tokens.length) tokens[tokens.length - 1] += seg.segment;
    else lead += seg.segment;
  }
  if (!tokens.length && lead) tokens.push(lead);
  return tokens;
}

/**
 * Cuts `text` into `weights.length` parts at word boundaries, part k taking the words whose middle
 * falls in its share of the whole (weights: the source pieces' lengths). Every part with a weight
 * gets at least one word while there are enough; parts with weight 0 get nothing.
 */
export function spreadOver(weights: readonly number[], text: string, lang = 'en'): string[] {
  const parts = weights.map(() => '');
  const live = weights.map((w, k) => (w > 0 ? k : -1)).filter((k) => k >= 0);
  if (live.length <= 1) {
    if (parts.length) parts[live[0] ?? 0] = text;
    return parts;
  }
  const tokens = wordTokens(text, lang);
  const total = weights.reduce((a, b) => a + b, 0);
  const n = live.length;
  // cut[p]: the number of words that go to the live parts before p, from where each word's middle
  // falls in the translation, scaled to the source pieces' shares.
  const cut = new Array<number>(n + 1).fill(0);
  cut[n] = tokens.length;
  let at = 0;
  let share = 0;
  let p = 1;
  for (let j = 0; j < tokens.length && p < n; j++) {
    const mid = (at + (tokens[j] as string).length / 2) / (text.length || 1);
    while (p < n && mid >= (share + (weights[live[p - 1] as number] as number)) / total) {
      share += weights[live[p - 1] as number] as number;
      cut[p++] = j;
    }
    at += (tokens[j] as string).length;
  }
  while (p < n) cut[p++] = tokens.length;
  if (tokens.length >= n) {
    // At least one word each: push cuts right where a part is empty, then left from the end.
    for (let q = 1; q < n; q++) cut[q] = Math.max(cut[q] as number, (cut[q - 1] as number) + 1);
    for (let q = n - 1; q >= 1; q--) cut[q] = Math.min(cut[q] as number, (cut[q + 1] as number) - 1);
  }
  for (let q = 0; q < n; q++) parts[live[q] as number] = tokens.slice(cut[q], cut[q + 1]).join('');
  return parts;
}

/**
 * Cuts `text` into one part per source part (`source`, e.g. the runs a term spans), weighted by the
 * source parts' text; where a source part ended without a space and the next began with one
 * (" important" after an italic "very"), the space between two parts moves to the next, as in the
 * source.
 */
export function spreadLikeSource(source: readonly string[], text: string, lang = 'en'): string[] {
  const out = spreadOver(
    source.map((s) => s.trim().length),
    text,
    lang,
  );
  for (let i = 0; i < out.length - 1; i++) {
    const part = out[i] as string;
    const space = /\s+$/.exec(part)?.[0];
    if (!space || /\s$/.test(source[i] as string)) continue;
    let next = i + 1;
    while (next < out.length - 1 && out[next] === '') next++;
    if (!/^\s/.test(source[next] as string)) continue;
    out[i] = part.slice(0, -space.length);
    out[next] = space + (out[next] as string);
  }
  return out;
}
