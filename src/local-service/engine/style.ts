// The deterministic subset of configured style rules (docs/engine.md lists them). Rules work on masked
// text: markup, placeholders, URLs and e-mail addresses are never changed. Unknown rules and options
// are accepted and ignored, as a real model would apply them invisibly.
import type { ConfiguredRules } from '../../api/types.js';

export type TextTransform = (text: string) => string;

/** Option values come with hyphens or underscores: compare them in one spelling. */
function norm(value: string | undefined): string {
  return (value ?? '').toLowerCase().replace(/-/g, '_');
}

/** A rule by name, wherever its category puts it (time_format is under dates_and_times or numbers). */
function ruleValue(rules: ConfiguredRules, name: string, categories: readonly string[]): string {
  for (const cat of categories) {
    const v = (rules as Record<string, Record<string, string> | undefined>)[cat]?.[name];
    if (typeof v === 'string') return norm(v);
  }
  return '';
}

// ---- time ----

const TIME_12H = /(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?\s?([AaPp])(?:\.\s?[Mm]\.|\s?[Mm])(?!\p{L})/gu;
const TIME_24H =
  /(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?!\d|\s?[AaPp](?:\.\s?[Mm]\.|\s?[Mm])(?!\p{L}))/gu;

/** "3:30 PM" -> "15:30", "12:05 AM" -> "00:05". */
export function to24Hour(text: string): string {
  return text.replace(TIME_12H, (m, h: string, min: string, sec: string | undefined, ap: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12 || Number(min) > 59) return m;
    const h24 = (hour % 12) + (ap.toLowerCase() === 'p' ? 12 : 0);
    return `${String(h24).padStart(2, '0')}:${min}${sec ? `:${sec}` : ''}`;
  });
}

/** "15:30" -> "3:30 PM", "00:05" -> "12:05 AM" (times already marked AM/PM are left alone). */
export function to12Hour(text: string): string {
  return text.replace(TIME_24H, (_m, h: string, min: string, sec: string | undefined) => {
    const hour = Number(h);
    const h12 = hour % 12 === 0 ? 12 : hour % 12;
    return `${h12}:${min}${sec ? `:${sec}` : ''} ${hour < 12 ? 'AM' : 'PM'}`;
  });
}

// ---- numbers ----

interface Separators {
  decimal?: string;
  thousands?: string;
}

const SEPARATOR_WORDS: Array<[RegExp, string]> = [
  [/^(?:comma)/, ','],
  [/^(?:period|point|dot|full_stop)/, '.'],
  [/^(?:narrow_no_break_space|narrow_space|thin_space)/, '\u202F'],
  [/^(?:space|non_breaking_space|no_break_space)/, '\u00A0'],
  [/^(?:apostrophe)/, '\u2019'],
];

function separatorWord(words: string): string | undefined {
  for (const [re, sep] of SEPARATOR_WORDS) if (re.test(words)) return sep;
  return undefined;
}

/** Reads separators from an option such as use_comma_and_do_not_use_thousands_separator. */
export function parseSeparators(rule: string, value: string): Separators {
  const out: Separators = {};
  for (const m of value.matchAll(/(?:use_)?([a-z_]+?)_as_(decimal|thousands)/g)) {
    const sep = separatorWord(m[1] as string);
    if (sep !== undefined) out[m[2] === 'decimal' ? 'decimal' : 'thousands'] = sep;
  }
  if (/do_not_use_thousands|no_thousands/.test(value)) out.thousands = '';
  const [first = ''] = value.split('_and_');
  const lead = /^use_([a-z_]+)$/.exec(first)?.[1];
  if (rule === 'decimal_separator' && out.decimal === undefined && lead) out.decimal = separatorWord(lead);
  if (rule === 'thousands_separator' && out.thousands === undefined) {
    if (/^do_not_use/.test(value)) out.thousands = '';
    else if (lead) out.thousands = separatorWord(lead);
  }
  return out;
}

// English-formatted numbers that have a thousands separator or a decimal point (plain digit runs such
// as years or phone numbers are never regrouped; versions like 1.2.3 are left alone).
const NUMBER = /(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d]|[.,]\d)/g;

function numberTransform(rules: ConfiguredRules): TextTransform | undefined {
  const cats = ['numbers'];
  const all = parseSeparators('decimal_separator', ruleValue(rules, 'decimal_separator', cats));
  const thousands = parseSeparators('thousands_separator', ruleValue(rules, 'thousands_separator', cats));
  const big = parseSeparators(
    'numbers_of_5_digits_or_more',
    ruleValue(rules, 'numbers_of_5_digits_or_more', cats),
  );
  const small = parseSeparators('numbers_up_to_4_digits', ruleValue(rules, 'numbers_up_to_4_digits', cats));
  const base: Separators = { ...all, ...thousands };
  if ([base, big, small].every((s) => s.decimal === undefined && s.thousands === undefined)) return undefined;
  return (text) =>
    text.replace(NUMBER, (m, int: string, frac: string | undefined) => {
      if (!int.includes(',') && frac === undefined) return m;
      const digits = int.replace(/,/g, '');
      const seps = { ...base, ...(digits.length >= 5 ? big : small) };
      const thousandsSep = seps.thousands ?? ',';
      const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, thousandsSep);
      return frac === undefined ? grouped : `${grouped}${seps.decimal ?? '.'}${frac}`;
    });
}

// ---- punctuation ----

/** Curls one kind of straight quotation mark by its neighbours; masks count as neither side. */
function curl(text: string, straight: string, open: string, close: string): string {
  const chars = [...text];
  let depth = 0;
  const opensBefore = /[\s([{\u2014\u2013-]/u;
  const closesAfter = /[\s.,;:!?)\]}\u2014\u2013-]/u;
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== straight) continue;
    const prev = chars[i - 1];
    const next = chars[i + 1];
    // a single quote between letters is an apostrophe, not a quotation mark
    if (straight === "'" && prev && next && /[\p{L}\p{N}]/u.test(prev) && /\p{L}/u.test(next)) continue;
    let opening: boolean;
    if (prev === undefined || opensBefore.test(prev)) opening = true;
    else if (next === undefined || closesAfter.test(next)) opening = false;
    else opening = depth === 0;
    chars[i] = opening ? open : close;
    depth = opening ? depth + 1 : Math.max(0, depth - 1);
  }
  return chars.join('');
}

/** Straight double and single quotation marks -> curly ones. */
export function curlyQuotes(text: string): string {
  return curl(curl(text, '"', '\u201C', '\u201D'), "'", '\u2018', '\u2019');
}

/** Apostrophes inside and at the end of words: don't, l'eau, '90s, students' -> curly. */
export function curlyApostrophes(text: string): string {
  return text
    .replace(/(?<=[\p{L}\p{N}])'(?=\p{L})/gu, '\u2019')
    .replace(/'(?=\d\ds\b)/g, '\u2019')
    .replace(/(?<=\p{L}s)'(?=\s|$)/gu, '\u2019');
}

/** The word "and" per target language, for spelling out "&". */
const AND: Record<string, string> = {
  de: 'und',
  en: 'and',
  es: 'y',
  fr: 'et',
  it: 'e',
  ja: 'と',
  ko: '및',
  nl: 'en',
  pl: 'i',
  pt: 'e',
  zh: '和',
};

/**
 * Compiles the configured rules into one transform of masked text, or undefined when none of the
 * implemented rules is set. `targetLang` picks language-specific words.
 */
export function compileStyle(
  rules: ConfiguredRules | undefined,
  targetLang: string,
): TextTransform | undefined {
  if (!rules) return undefined;
  const steps: TextTransform[] = [];
  const numbers = numberTransform(rules);
  if (numbers) steps.push(numbers);

  const time = ruleValue(rules, 'time_format', ['dates_and_times', 'numbers', 'formatting']);
  if (time.includes('24')) steps.push(to24Hour);
  else if (time.includes('12')) steps.push(to12Hour);

  const phone = ruleValue(rules, 'phone_number_format', ['formatting']);
  if (phone.includes('do_not_use_space')) {
    steps.push((t) => t.replace(/\+\d[\d \u00A0]{5,}\d/g, (m) => m.replace(/[ \u00A0]/g, '')));
  }
  const countryCode = ruleValue(rules, 'phone_number_country_code_format', ['formatting']);
  if (countryCode.includes('00'))
    steps.push((t) => t.replace(/(?<![\w+])\+(?=\d{1,3}[\s\u00A0(]?\d)/g, '00'));

  const ellipsis = ruleValue(rules, 'ellipsis', ['punctuation']);
  if (ellipsis.includes('ellipsis_character')) steps.push((t) => t.replace(/\.\.\./g, '\u2026'));

  const dash = ruleValue(rules, 'dash', ['punctuation']);
  const dashChar = dash.includes('em_dash') ? '\u2014' : dash.includes('en_dash') ? '\u2013' : undefined;
  if (dashChar) steps.push((t) => t.replace(/ (?:--?|\u2013|\u2014) /g, ` ${dashChar} `));

  const exclamation = ruleValue(rules, 'exclamation_marks', ['punctuation']);
  if (exclamation.startsWith('do_not_use')) steps.push((t) => t.replace(/!+/g, '.'));

  const both = ruleValue(rules, 'quotation_mark_and_apostrophe', ['punctuation']).includes('curly');
  if (both || ruleValue(rules, 'apostrophe', ['punctuation']).includes('curly')) steps.push(curlyApostrophes);
  if (both || ruleValue(rules, 'quotation_mark', ['punctuation']).includes('curly')) steps.push(curlyQuotes);

  if (ruleValue(rules, 'eszett', ['spelling_and_grammar']).includes('ss')) {
    steps.push((t) => t.replace(/ß/g, 'ss').replace(/ẞ/g, 'SS'));
  }
  if (ruleValue(rules, 'umlauts', ['spelling_and_grammar']).includes('ae_oe_ue')) {
    const map: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };
    steps.push((t) => t.replace(/[äöüÄÖÜ]/g, (c) => map[c] as string));
  }

  const abbreviations = ruleValue(rules, 'abbreviations', ['style_and_tone']);
  if (abbreviations.startsWith('avoid_abbreviations_and_symbols')) {
    const and = AND[targetLang.toLowerCase().split('-')[0] as string] ?? AND.en;
    steps.push((t) => t.replace(/ & /g, ` ${and} `));
  }

  if (steps.length === 0) return undefined;
  return (text) => steps.reduce((t, step) => step(t), text);
}
