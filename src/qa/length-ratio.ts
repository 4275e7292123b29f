// How long a translation usually is (docs/qa.md, the `length` check): characters of text in a
// language per character of the same text in English, from published localisation expansion tables
// (German and Finnish run about 30% longer than English, Chinese and Japanese take a half or less).
// A translation far outside the usual ratio lost text, kept the source beside it, or is padded.

const PER_ENGLISH_CHARACTER: Record<string, number> = {
  ar: 1.0,
  bg: 1.15,
  cs: 1.05,
  da: 1.1,
  de: 1.3,
  el: 1.2,
  en: 1.0,
  es: 1.2,
  et: 1.05,
  fi: 1.3,
  fr: 1.2,
  he: 0.9,
  hu: 1.2,
  id: 1.2,
  it: 1.2,
  ja: 0.55,
  ko: 0.6,
  lt: 1.1,
  lv: 1.1,
  nb: 1.1,
  nl: 1.25,
  pl: 1.2,
  pt: 1.2,
  ro: 1.2,
  ru: 1.15,
  sk: 1.05,
  sl: 1.05,
  sv: 1.1,
  th: 1.0,
  tr: 1.1,
  uk: 1.15,
  vi: 1.2,
  zh: 0.4,
};

/** Outside expected/FAR .. expected*FAR the length is "far outside" the usual ratio. */
export const FAR = 2.5;

/** Source characters below which a document's length says nothing (a title, a few words). */
export const MIN_SOURCE_CHARACTERS = 200;

function perEnglish(lang: string | undefined): number {
  return PER_ENGLISH_CHARACTER[(lang ?? 'en').toLowerCase().split('-')[0] as string] ?? 1;
}

/** The usual output/source length ratio from `sourceLang` (undefined: English) to `targetLang`. */
export function expectedRatio(sourceLang: string | undefined, targetLang: string): number {
  return perEnglish(targetLang) / perEnglish(sourceLang);
}

/**
 * The ratio of `outputChars` to `sourceChars` when it is far outside the usual one (undefined: within
 * it, or the source too short to tell).
 */
export function lengthOutlier(
  sourceChars: number,
  outputChars: number,
  sourceLang: string | undefined,
  targetLang: string,
): { ratio: number; expected: number } | undefined {
  if (sourceChars < MIN_SOURCE_CHARACTERS) return undefined;
  const ratio = outputChars / sourceChars;
  const expected = expectedRatio(sourceLang, targetLang);
  if (ratio >= expected / FAR && ratio <= expected * FAR) return undefined;
  return { ratio, expected };
}
