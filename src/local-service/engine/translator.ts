// One segment at a time: phrasebook, else pseudo-localisation with custom-instruction terms, then the
// style rules. A segment may come in pieces (the runs of a paragraph): the pieces come back in the
// same number, each keeping its formatting.
import type { TranslateOptions } from './types.js';
import { Masked, STRUCTURAL_RULES, TIME_RULE, type ProtectRule } from './mask.js';
import { pseudoLocalise } from './pseudo.js';
import type { Phrasebook } from './phrasebook.js';
import { compileStyle, type TextTransform } from './style.js';
import { parseInstructions, termProtectRules } from './instructions.js';
import { glossaryRule } from './glossary.js';
import { untranslatedElementRules } from './untranslated.js';
import { spreadLikeSource } from './spread.js';

export interface SegmentTranslator {
  /**
   * Translates a segment given as pieces; returns as many pieces. Pieces marked in `fixed` (code,
   * untranslatable inline elements) are part of the segment's text but come back unchanged.
   */
  translate(pieces: readonly string[], fixed?: readonly boolean[]): string[];
  /** A segment in one piece. */
  translateText(text: string): string;
  /** Lower-case target language. */
  readonly targetLang: string;
  /** Source characters (code points, fixed pieces excluded) of the non-blank segments translated so far. */
  readonly characters: number;
  /** The first few thousand characters of source text translated (for language detection). */
  readonly sample: string;
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Puts a whole-segment translation (a phrasebook hit) back into the segment's pieces: spread over the
 * non-blank pieces in proportion to their length (./spread.ts), so that every formatted run keeps
 * some of the text; the first piece keeps its leading and the last its trailing whitespace.
 */
function distribute(pieces: readonly string[], translation: string, lang: string): string[] {
  const out = [...pieces];
  const first = pieces.findIndex((p) => p.trim() !== '');
  let last = pieces.length - 1;
  while (last > first && (pieces[last] as string).trim() === '') last--;
  const lead = /^\s*/.exec(pieces[first] as string)?.[0] ?? '';
  const trail = /\s*$/.exec(pieces[last] as string)?.[0] ?? '';
  const parts = spreadLikeSource(pieces.slice(first, last + 1), translation, lang);
  parts.forEach((part, k) => (out[first + k] = part));
  out[first] = lead + (out[first] as string);
  out[last] = (out[last] as string) + trail;
  return out;
}

const CACHE_LIMIT = 20_000;
const SAMPLE_LENGTH = 4_000;

export function createTranslator(
  phrasebook: Phrasebook | undefined,
  opts: TranslateOptions,
  sourceLang: string,
): SegmentTranslator {
  const lang = opts.targetLang.toLowerCase();
  const style: TextTransform | undefined = compileStyle(opts.style?.configured_rules, lang);
  const terms = parseInstructions(opts.style?.custom_instructions ?? [], sourceLang);
  const glossary = glossaryRule(opts.glossary, lang);
  const untranslated = untranslatedElementRules(opts);
  const pseudoRules: ProtectRule[] = [
    ...untranslated,
    ...STRUCTURAL_RULES,
    ...(glossary ? [glossary] : []),
    ...termProtectRules(terms),
    TIME_RULE,
  ];
  const cache = new Map<string, string[]>();
  let characters = 0;
  let sample = '';

  const applyStyle = (pieces: string[], fixed?: readonly boolean[]): string[] => {
    if (!style) return pieces;
    const masked = new Masked(pieces, STRUCTURAL_RULES, fixed);
    if (!masked.ok) return pieces;
    masked.apply(style);
    return masked.unmask();
  };

  const translateUncached = (
    pieces: readonly string[],
    joined: string,
    fixed?: readonly boolean[],
  ): string[] => {
    // A phrasebook translation cannot be split around fixed pieces: such segments are pseudo-localised.
    const hit = fixed?.some(Boolean) ? undefined : phrasebook?.lookup(joined, lang);
    if (hit !== undefined) return applyStyle(distribute(pieces, hit, lang));
    const masked = new Masked(pieces, pseudoRules, fixed);
    if (!masked.ok) return [...pieces];
    const textLength = pieces.reduce((n, p, i) => n + (fixed?.[i] ? 0 : p.length), 0);
    masked.apply((t) => pseudoLocalise(t, lang, textLength, (ch) => masked.isBoundary(ch)));
    return applyStyle(masked.unmask(), fixed);
  };

  const translate = (pieces: readonly string[], fixed?: readonly boolean[]): string[] => {
    const joined = pieces.join('');
    if (pieces.every((p, i) => fixed?.[i] || p.trim() === '')) return [...pieces];
    characters += pieces.reduce((n, p, i) => n + (fixed?.[i] ? 0 : codePoints(p)), 0);
    if (sample.length < SAMPLE_LENGTH) sample += pieces.filter((_, i) => !fixed?.[i]).join('') + '\n';
    const key = pieces.map((p, i) => (fixed?.[i] ? `\u0001${p}` : p)).join('\u0000');
    const cached = cache.get(key);
    if (cached) return [...cached];
    const out = translateUncached(pieces, joined, fixed);
    if (cache.size < CACHE_LIMIT) cache.set(key, out);
    return [...out];
  };

  return {
    translate,
    translateText: (text) => translate([text])[0] as string,
    targetLang: lang,
    get characters() {
      return characters;
    },
    get sample() {
      return sample;
    },
  };
}
