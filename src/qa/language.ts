import { languageDetector } from './language-detector.js';

// Which language a translated text is written in (docs/qa.md, the `language` check), by eld (a
// maintained n-gram detector, 60 languages). Only a detection eld itself calls reliable counts, on
// text long enough to tell: a short line, a list of names or a pseudo-localised test translation
// reads as "not reliable" and is never flagged. eld runs in a worker thread (./language-detector.ts).

import { baseLanguage } from '../documents/language-tag.js';

/** Letters a text needs before its language is judged (fewer: too short to tell). */
export const MIN_LETTERS_TO_DETECT = 120;

/** The target language scoring within this share of the best one is not told apart from it. */
const CLOSE_CALL = 0.1;

/** Text beyond this many characters adds nothing to the detection (and costs time). */
const SAMPLE_CHARACTERS = 3000;

/** The code eld answers for a target language (its base; nb is Norwegian 'no', id reads as Malay). */
const ELD_CODE: Record<string, string[]> = { nb: ['no'], id: ['ms', 'id'] };

function codesOf(tag: string): string[] {
  const base = baseLanguage(tag);
  return ELD_CODE[base] ?? [base];
}

const LETTER = /\p{L}/gu;

export function letterCount(text: string): number {
  return text.match(LETTER)?.length ?? 0;
}

/** A language found where another was expected. */
export interface LanguageMismatch {
  /** What eld reads the text as (ISO 639-1). */
  detected: string;
}

/**
 * Reads `text` (a translation into `targetLang`). Undefined when it is in the target language, too
 * short to tell, not reliably in any language, or in a language eld does not know (then only a
 * reliable detection of the `sourceLang` counts as a mismatch: the text was not translated).
 */
export async function languageMismatch(
  text: string,
  targetLang: string,
  sourceLang?: string,
): Promise<LanguageMismatch | undefined> {
  if (letterCount(text) < MIN_LETTERS_TO_DETECT) return undefined;
  const eld = await languageDetector();
  const result = await eld.detect(text.slice(0, SAMPLE_CHARACTERS));
  if (!result.reliable || result.language === '') return undefined;
  const known = eld.languages;
  const target = codesOf(targetLang);
  if (target.includes(result.language)) return undefined;
  // The target close behind the winner (German text full of English product names): no mismatch.
  const scores = result.scores;
  const best = scores[result.language] ?? 0;
  if (target.some((c) => (scores[c] ?? 0) >= best * (1 - CLOSE_CALL))) return undefined;
  if (!target.some((c) => known.has(c)))
    return sourceLang !== undefined && codesOf(sourceLang).includes(result.language)
      ? { detected: result.language }
      : undefined;
  return { detected: result.language };
}

/** The language `text` is reliably written in (ISO 639-1), or undefined when too short to tell. */
export async function reliableLanguage(text: string): Promise<string | undefined> {
  if (letterCount(text) < MIN_LETTERS_TO_DETECT) return undefined;
  const result = await (await languageDetector()).detect(text.slice(0, SAMPLE_CHARACTERS));
  return result.reliable && result.language !== '' ? result.language : undefined;
}
