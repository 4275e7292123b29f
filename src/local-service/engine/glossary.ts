// Glossary terms in a segment: every source term found is replaced by its target term before
// pseudo-localisation, as a protected span (mask.ts) so that nothing later changes it.
//
// Matching: case-sensitive, longest term first, on word boundaries (a term that starts or ends
// with a letter or digit does not match inside a longer word). Scripts written without spaces
// (Han, kana, Thai) have no word boundaries: their terms match anywhere. A term starting with a
// lower-case letter also matches with that letter upper-cased (a sentence's first word); its
// target then starts upper-case too.
//
// A glossary may hold thousands of terms: the text is scanned once, and at each position only the
// term lengths that occur are looked up in a map (a regular expression of 10,000 alternatives
// takes seconds per segment).
import type { GlossaryTerms } from '../glossary-entries.js';
import type { Matcher, ProtectRule } from './mask.js';
import { spreadLikeSource } from './spread.js';

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]$/u;

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch);
}

function needsBoundary(ch: string | undefined): boolean {
  return isWordChar(ch) && !UNSPACED.test(ch!);
}

function upperFirst(s: string): string {
  const [first = '', ...rest] = [...s];
  return first.toUpperCase() + rest.join('');
}

/** The code point before UTF-16 index `i`, and the one starting at `i`. */
function charBefore(text: string, i: number): string | undefined {
  if (i <= 0) return undefined;
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i >= 2 ? text.slice(i - 2, i) : text[i - 1];
}

function charAt(text: string, i: number): string | undefined {
  const cp = text.codePointAt(i);
  return cp === undefined ? undefined : String.fromCodePoint(cp);
}

interface Term {
  target: string;
  startBoundary: boolean;
  endBoundary: boolean;
}

function termMatcher(terms: Map<string, Term>): Matcher {
  const lengths = [...new Set([...terms.keys()].map((t) => t.length))].sort((a, b) => b - a);
  return {
    [Symbol.replace](text: string, replacer: (match: string, offset: number) => string): string {
      let out = '';
      let copied = 0;
      let i = 0;
      while (i < text.length) {
        let matched = 0;
        for (const len of lengths) {
          if (i + len > text.length) continue;
          const candidate = text.slice(i, i + len);
          const term = terms.get(candidate);
          if (!term) continue;
          if (term.startBoundary && isWordChar(charBefore(text, i))) continue;
          if (term.endBoundary && isWordChar(charAt(text, i + len))) continue;
          out += text.slice(copied, i) + replacer(candidate, i);
          copied = i + len;
          matched = len;
          break;
        }
        i += matched || 1;
      }
      return out + text.slice(copied);
    },
  };
}

/** The rule that replaces a glossary's source terms; undefined for no terms. */
export function glossaryRule(
  entries: GlossaryTerms | undefined,
  targetLang: string,
): ProtectRule | undefined {
  if (!entries || entries.length === 0) return undefined;
  const terms = new Map<string, Term>();
  const add = (source: string, target: string): void => {
    const chars = [...source];
    terms.set(source, {
      target,
      startBoundary: needsBoundary(chars[0]),
      endBoundary: needsBoundary(chars[chars.length - 1]),
    });
  };
  for (const [source, target] of entries) add(source, target);
  for (const [source, target] of entries) {
    const first = [...source][0] ?? '';
    const capitalised = upperFirst(source);
    if (first !== first.toUpperCase() && !terms.has(capitalised)) add(capitalised, upperFirst(target));
  }
  return {
    pattern: termMatcher(terms),
    replace: (match) => terms.get(match)?.target ?? match,
    // A term whose words are in differently formatted runs is still a term.
    spread: (chunks, target) => spreadLikeSource(chunks, target, targetLang),
  };
}
