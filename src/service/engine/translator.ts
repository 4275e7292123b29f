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

/** Puts a whole translation into the first non-blank piece and empties the others. */
function distribute(pieces: readonly string[], translation: string): string[] {
  const out = [...pieces];
  const first = pieces.findIndex((p) => p.trim() !== '');
  let last = pieces.length - 1;
  while (last > first && (pieces[last] as string).trim() === '') last--;
  const lead = (s: string): string => /^\s*/.exec(s)?.[0] ?? '';
  const trail = (s: string): string => /\s*$/.exec(s)?.[0] ?? '';
  const f = pieces[first] as string;
  const l = pieces[last] as string;
  out[first] = lead(f) + translation + (first === last ? trail(f) : '');
  for (let i = first + 1; i < last; i++) out[i] = '';
  if (last > first) out[last] = trail(l);
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
  const glossary = glossaryRule(opts.glossary);
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
    if (hit !== undefined) return applyStyle(distribute(pieces, hit));
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
