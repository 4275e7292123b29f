import { baseLanguage } from '../documents/language-tag.js';
import { FORMALITY_LANGUAGES } from './types.js';

// What the service says of a target language, asked by the manifest checks before anything is sent
// and answered by the local service the same way (one rule for both).

/**
 * Whether formality `more`/`less` works for a target language (any case); `prefer_*` always works.
 * A listed language without a region covers its regional variants (es → es-419); one listed with a
 * region covers that region only (pt-br, pt-pt, not pt).
 */
export function supportsFormality(targetLang: string): boolean {
  const upper = targetLang.toUpperCase();
  return (FORMALITY_LANGUAGES as readonly string[]).some(
    (l) => l === upper || (!l.includes('-') && l === baseLanguage(upper).toUpperCase()),
  );
}
