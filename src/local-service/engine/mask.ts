// Masking: protected spans of a segment (markup, placeholders, URLs, e-mail addresses, piece
// boundaries, terms fixed by custom instructions ...) are replaced by single private-use characters
// so that pseudo-localisation and style rules cannot touch them, then put back afterwards.

/** First and last private-use code unit used for masks. */
const MASK_FIRST = 0xe000;
const MASK_LAST = 0xf8ff;
// NUL joins pieces internally: a NUL in the input is protected like a private-use character.
// eslint-disable-next-line no-control-regex
const MASK_CHAR = /[\u0000\uE000-\uF8FF]/g;

interface MaskToken {
  text: string;
  /** A boundary between two pieces of the segment (runs of a paragraph). */
  boundary?: boolean;
}

/**
 * A matcher other than a regular expression: replaces every match it finds (String#replace protocol;
 * the replacer also gets the match's offset).
 */
export interface Matcher {
  [Symbol.replace](text: string, replacer: (match: string, offset: number) => string): string;
}

/** A rule that protects every match of `pattern`; `replace` may substitute the protected text. */
export interface ProtectRule {
  pattern: RegExp | Matcher; // a RegExp must have the g flag
  replace?: (match: string) => string;
  /**
   * Matches also across the boundaries between pieces (a term whose words are in differently
   * formatted runs); the replacement is cut into one part per piece the match spans by `spread`
   * (given the match cut at the boundaries), so that every piece keeps its formatting.
   */
  spread?: (chunks: string[], replacement: string) => string[];
}

/** Every match of `pattern` in `text`, in order, with its offset. */
function matchesOf(pattern: RegExp | Matcher, text: string): Array<{ index: number; text: string }> {
  const found: Array<{ index: number; text: string }> = [];
  if (pattern instanceof RegExp)
    for (const m of text.matchAll(pattern)) found.push({ index: m.index, text: m[0] });
  else
    pattern[Symbol.replace](text, (m, index) => {
      found.push({ index, text: m });
      return m;
    });
  return found;
}

export class Masked {
  private readonly tokens: MaskToken[] = [];
  text: string;

  /**
   * Masks the boundaries between `pieces` and the pieces marked `fixed` (kept whole), then every match
   * of the rules, in order.
   */
  constructor(pieces: readonly string[], rules: readonly ProtectRule[], fixed?: readonly boolean[]) {
    // Private-use characters already in the input are protected first so that they stay unambiguous.
    const parts = pieces.map((p, i) =>
      fixed?.[i] ? this.add({ text: p }) : p.replace(MASK_CHAR, (c) => this.add({ text: c })),
    );
    // One mask character stands for every boundary.
    let text = parts.join(this.add({ text: '', boundary: true }));
    for (const rule of rules) {
      text = rule.spread
        ? this.replaceAcrossPieces(text, rule, rule.spread)
        : text.replace(rule.pattern, (m) => this.add({ text: rule.replace ? rule.replace(m) : m }));
    }
    this.text = text;
  }

  /**
   * Applies a rule to the text as if the pieces were not cut: a match spanning boundaries becomes one
   * protected part per piece, with the boundaries between them kept.
   */
  private replaceAcrossPieces(
    text: string,
    rule: ProtectRule,
    spread: (chunks: string[], replacement: string) => string[],
  ): string {
    // The text without boundaries, and where each of its characters is in `text`.
    let plain = '';
    const origin: number[] = [];
    for (let i = 0; i < text.length; i++) {
      if (this.isBoundary(text[i] as string)) continue;
      origin.push(i);
      plain += text[i];
    }
    let out = '';
    let copied = 0;
    for (const m of matchesOf(rule.pattern, plain)) {
      if (m.text === '') continue;
      const start = origin[m.index] as number;
      const end = (origin[m.index + m.text.length - 1] as number) + 1;
      const replacement = rule.replace ? rule.replace(m.text) : m.text;
      const spanned = text.slice(start, end);
      // The spanned text cut at its boundaries: one protected part for each piece.
      const chunks: string[] = [''];
      const cuts: string[] = [];
      for (const ch of spanned) {
        if (this.isBoundary(ch)) {
          cuts.push(ch);
          chunks.push('');
        } else chunks[chunks.length - 1] += ch;
      }
      const parts = cuts.length ? spread(chunks, replacement) : [replacement];
      out += text.slice(copied, start);
      parts.forEach((part, k) => {
        out += this.add({ text: part }) + (cuts[k] ?? '');
      });
      copied = end;
    }
    return out + text.slice(copied);
  }

  /** False when the segment had more protected spans than there are mask characters. */
  get ok(): boolean {
    return this.tokens.length <= MASK_LAST - MASK_FIRST + 1;
  }

  private add(token: MaskToken): string {
    const i = this.tokens.length;
    this.tokens.push(token);
    return i <= MASK_LAST - MASK_FIRST ? String.fromCharCode(MASK_FIRST + i) : '\u0000';
  }

  /** True for the mask character of a boundary between pieces. */
  isBoundary(ch: string): boolean {
    const code = ch.charCodeAt(0);
    return ch.length === 1 && code >= MASK_FIRST && this.tokens[code - MASK_FIRST]?.boundary === true;
  }

  /** Applies `fn` to the masked text (it must keep mask characters as they are). */
  apply(fn: (masked: string) => string): void {
    this.text = fn(this.text);
  }

  /** Puts the protected spans back and splits at the piece boundaries. */
  unmask(): string[] {
    const out: string[] = [''];
    for (const ch of this.text) {
      const code = ch.charCodeAt(0);
      if (ch.length === 1 && code >= MASK_FIRST && code <= MASK_LAST) {
        const token = this.tokens[code - MASK_FIRST];
        if (token?.boundary) {
          out.push('');
          continue;
        }
        if (token) {
          out[out.length - 1] += token.text;
          continue;
        }
      }
      out[out.length - 1] += ch;
    }
    return out;
  }
}

/** Spans never changed by pseudo-localisation or style rules. */
export const STRUCTURAL_RULES: readonly ProtectRule[] = [
  // inline markup: tags, comments, character references
  {
    pattern:
      /<!--[\s\S]*?-->|<![A-Za-z][^<>]*>|<\/?[A-Za-z][\w:.-]*(?:\s[^<>]*)?\/?>|&(?:#\d+|#x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);/g,
  },
  // URLs (trailing sentence punctuation is not part of them)
  {
    pattern:
      /\b(?:https?|ftp):\/\/[^\s<>"'\u201C\u201D]*[^\s<>"'.,;:!?)\u201C\u201D]|\bwww\.[^\s<>"']*[^\s<>"'.,;:!?)]/gi,
  },
  // e-mail addresses
  { pattern: /[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g },
  // placeholders: {{name}}, ${x}, {0}, {name}, %s, %1$d, %.2f
  {
    pattern:
      /\{\{[^{}]*\}\}|\$\{[^{}]*\}|\{\d+(?:,[^{}]*)?\}|\{[A-Za-z_][\w.]*\}|%(?:\d+\$)?[-+0#]*\d*(?:\.\d+)?[sdifuxXoeEgGc@]/g,
  },
  // Tokens a client puts in place of its own placeholders before sending (__VAR_0__, as DeepL's
  // CLI does), shell and PHP variables ($name, $1) and named parameters (:count, Rails and
  // Laravel): a real engine leaves such identifiers alone.
  { pattern: /__[A-Za-z0-9][A-Za-z0-9_]*__|\$[A-Za-z_]\w*|\$\d+|(?<![\w:/]):[A-Za-z_]\w*/g },
];

/** Times such as "3:30 PM" (kept whole by pseudo-localisation so that style rules can rewrite them). */
export const TIME_RULE: ProtectRule = {
  pattern: /(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp](?:\.\s?[Mm]\.|\s?[Mm])(?!\p{L}))?/gu,
};
