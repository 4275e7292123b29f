import { placeholdersOf } from '../documents/placeholders.js';

// What a translation must carry over from its source unchanged (docs/qa.md, soft checks): URLs,
// e-mail addresses, placeholders of string templates, inline code and numbers. Each is found in a
// segment's text and given a normal form, so that the output's can be compared with the source's
// whatever the target language did around them (a number's separators, a URL's closing period).

/** The kinds of text a translation keeps; each is a soft check of its own (docs/qa.md). */
export const TOKEN_KINDS = ['urls', 'emails', 'placeholders', 'code', 'numbers'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** A URL (http, https, ftp, www.), without the sentence punctuation that may follow it. */
const URL = /\b(?:(?:https?|ftp):\/\/|www\.)[^\s<>"'`\u201C\u201D]*[^\s<>"'`.,;:!?)\]\u201C\u201D]/gi;

const EMAIL = /[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;

/** Inline code written in the text itself (Markdown, plain text): `like this`. */
const BACKTICK_CODE = /`[^`\n]+`/g;

/**
 * A time of day, 12-hour ("6:30 PM", "8 a.m.") or 24-hour ("18:30"): compared as 24-hour HH:MM, so
 * that a translation (or a style rule) writing "6:30 PM" as "18:30" keeps the same time.
 */
const TIME =
  /(?<![\d:.,])(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s?([AaPp])\.?\s?[Mm]\.?(?!\p{L})|(?<![\d:.,])(\d{1,2}):(\d{2})(?::\d{2})?(?![\d:])/gu;

function time24(m: RegExpExecArray | string[]): string {
  const [, h12, m12, ampm, h24, m24] = m;
  let hour = Number(h12 ?? h24);
  const minute = m12 ?? m24 ?? '00';
  if (ampm) hour = (hour % 12) + (ampm.toLowerCase() === 'p' ? 12 : 0);
  return `${String(hour).padStart(2, '0')}:${minute}`;
}

/**
 * A number: digits with the separators languages write between them (1,000.50 and 1.000,50 and
 * 1 000,50 with a no-break space are one number); compared by its digits alone.
 */
const NUMBER = /\d+(?:[.,'\u00A0\u202F]\d+)*/g;

/** One kind's tokens of a text, as normal forms (several times when the text has them several times). */
export type Tokens = Record<TokenKind, string[]>;

export function emptyTokens(): Tokens {
  return { urls: [], emails: [], placeholders: [], code: [], numbers: [] };
}

/**
 * The tokens of a segment: `text` is its translatable text, `code` its code pieces (inline markup the
 * document layer keeps as it is: an html <code>, an XLIFF <ph/>), whose own text is the inline code.
 * URLs, e-mail addresses and placeholders are taken out before numbers are looked for, so that the
 * digits of "https://example.com/v2" or "{0}" are not numbers of the text as well.
 */
export function tokensOf(text: string, code: readonly string[] = []): Tokens {
  const found = emptyTokens();
  let rest = text;
  const take = (kind: TokenKind, re: RegExp, normal: (m: string) => string): void => {
    rest = rest.replace(re, (m) => {
      found[kind].push(normal(m));
      return ' ';
    });
  };
  take('code', BACKTICK_CODE, (m) => m);
  take('urls', URL, (m) => m.toLowerCase());
  take('emails', EMAIL, (m) => m.toLowerCase());
  // Placeholders as the string files recognise them ({name}, {{x}}, %s, %1$d, ICU messages ...).
  for (const p of placeholdersOf(rest)) {
    found.placeholders.push(p);
    rest = rest.replace(p, ' ');
  }
  rest = rest.replace(TIME, (...m: string[]) => {
    found.numbers.push(time24(m));
    return ' ';
  });
  take('numbers', NUMBER, (m) => m.replace(/\D/g, '').replace(/^0+(?=\d)/, ''));
  for (const c of code) {
    const inline = c.trim();
    // Markup with no text of its own (<br/>, <x id="1"/>, an opening tag) is no code a reader sees.
    if (inline !== '' && !/^<[^<>]*>$/.test(inline)) found.code.push(inline);
  }
  return found;
}

/** Adds `more` to `into` (kind by kind). */
export function addTokens(into: Tokens, more: Tokens): void {
  for (const kind of TOKEN_KINDS) into[kind].push(...more[kind]);
}

/** The tokens of `source` that `output` has fewer times than the source (each listed once). */
export function missingTokens(source: readonly string[], output: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const t of output) left.set(t, (left.get(t) ?? 0) + 1);
  const missing = new Set<string>();
  for (const t of source) {
    const n = left.get(t) ?? 0;
    if (n > 0) left.set(t, n - 1);
    else missing.add(t);
  }
  return [...missing];
}
