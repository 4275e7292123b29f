// Source language detection for requests without source_lang.
//
// 1. A segment the phrasebook knows is in the language whose translation it equals (the phrasebook
//    holds each phrase in every language it has).
// 2. Otherwise the Efficient Language Detector (npm `eld`, its medium n-gram database shipped in the
//    package, nothing downloaded), limited to the service's source languages. It is loaded on first
//    use only (about 60 MB of heap): requests that give source_lang never pay for it.
// 3. Text it cannot place falls back to the script: kana is Japanese, Hangul Korean, Han Chinese,
//    Cyrillic Russian, Arabic Arabic, Greek Greek; else English. "Cannot place": no letters, a
//    result eld itself calls unreliable, or two best languages within 2% of each other ("Hello
//    world" scores German 0.69, English 0.68: a coin toss is no detection).
import { SOURCE_LANGUAGES } from '../languages.js';
import type { Phrasebook } from './phrasebook.js';

interface Detector {
  detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> };
}

/** Relative score difference under which the two best languages are not told apart. */
const CLOSE_CALL = 0.02;

let detector: Promise<Detector> | undefined;

function loadDetector(): Promise<Detector> {
  detector ??= import('eld/medium').then(({ eld }) => {
    eld.setLanguageSubset(SOURCE_LANGUAGES.map((l) => l.toLowerCase()));
    return eld;
  });
  return detector;
}

/** The language a text's script gives away; English when nothing stands out. */
export function languageByScript(text: string): string {
  if (/[\u3040-\u30FF]/.test(text)) return 'ja';
  if (/[\uAC00-\uD7AF]/.test(text)) return 'ko';
  if (/[\u4E00-\u9FFF]/.test(text)) return 'zh';
  if (/[\u0400-\u04FF]/.test(text)) return 'ru';
  if (/[\u0600-\u06FF]/.test(text)) return 'ar';
  if (/[\u0370-\u03FF]/.test(text)) return 'el';
  return 'en';
}

/** Markup and character references are not language. */
function textOnly(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[#\w]+;/g, ' ')
    .slice(0, 10_000);
}

/** Starts loading the detector now (a server that will detect, so that no request waits for it). */
export function preloadDetector(): void {
  void loadDetector().catch(() => undefined);
}

/** Lower-case code of the language `text` is written in. */
export async function detectLanguage(text: string, phrasebook?: Phrasebook): Promise<string> {
  const known = phrasebook?.languageOf(text);
  if (known) return known;
  const plain = textOnly(text);
  if (!/\p{L}/u.test(plain)) return languageByScript(plain);
  const result = (await loadDetector()).detect(plain);
  if (!result.language || !result.isReliable()) return languageByScript(plain);
  const [best = 0, second = 0] = Object.values(result.getScores()).sort((a, b) => b - a);
  return best - second < CLOSE_CALL * best ? languageByScript(plain) : result.language;
}
