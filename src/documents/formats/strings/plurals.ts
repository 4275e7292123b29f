// Plural forms per target language: the CLDR categories (Android <plurals>, iOS .stringsdict, ICU
// messages) from Intl.PluralRules, and gettext's Plural-Forms header with the msgstr[n] that takes
// the singular. A source has the plural forms of its own language; a target gets those of its
// language, each form taking the translation of the source form of the same name, else of `other`
// (docs/strings/README.md: a reviewer refines the extra forms of Russian or Arabic).
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { applySplices, type Splice } from '../xml.js';

const CLDR_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];

/**
 * The CLDR plural categories of a language, in CLDR order (de → one, other; ja → other); `ordinal`:
 * those of its ordinals (en → one, two, few, other).
 */
export function pluralCategories(lang: string, type: Intl.PluralRuleType = 'cardinal'): string[] {
  let categories: string[];
  try {
    categories = new Intl.PluralRules(lang, { type }).resolvedOptions().pluralCategories;
  } catch {
    categories = ['one', 'other'];
  }
  return CLDR_ORDER.filter((c) => categories.includes(c));
}

/**
 * The plural forms a target language writes, each with the source form whose translation it takes
 * (the form of the same category, else `other`); undefined when the source's forms already fit.
 */
export function formsFor<T extends { category: string }>(
  forms: readonly T[],
  lang: string,
): Array<[string, T]> | undefined {
  const wanted = pluralCategories(lang);
  if (
    forms.length === 0 ||
    (forms.length === wanted.length && forms.every((f) => wanted.includes(f.category)))
  )
    return undefined;
  const fallback = forms.find((f) => f.category === 'other') ?? (forms[forms.length - 1] as T);
  return wanted.map((c) => [c, forms.find((f) => f.category === c) ?? fallback]);
}

interface GettextPlurals {
  nplurals: number;
  plural: string;
  /** msgstr index of n = 1 (the singular's translation); the others take the plural's. */
  one: number;
}

const ONE: GettextPlurals = { nplurals: 1, plural: '0', one: 0 };
const NOT_ONE: GettextPlurals = { nplurals: 2, plural: '(n != 1)', one: 0 };
const GT_ONE: GettextPlurals = { nplurals: 2, plural: '(n > 1)', one: 0 };
const EAST_SLAVIC: GettextPlurals = {
  nplurals: 3,
  plural: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)',
  one: 0,
};
const CZECH_SLOVAK: GettextPlurals = { nplurals: 3, plural: '(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2', one: 0 };
/** The Plural-Forms of GNU gettext's documentation (and Unicode's gettext rules) per base language. */
const GETTEXT: Record<string, GettextPlurals> = {
  ja: ONE,
  ko: ONE,
  zh: ONE,
  th: ONE,
  vi: ONE,
  id: ONE,
  tr: NOT_ONE,
  fr: GT_ONE,
  'pt-br': GT_ONE,
  ru: EAST_SLAVIC,
  uk: EAST_SLAVIC,
  pl: { nplurals: 3, plural: '(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)', one: 0 },
  cs: CZECH_SLOVAK,
  sk: CZECH_SLOVAK,
  lt: {
    nplurals: 3,
    plural: '(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2)',
    one: 0,
  },
  lv: { nplurals: 3, plural: '(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2)', one: 0 },
  ro: { nplurals: 3, plural: '(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2)', one: 0 },
  sl: { nplurals: 4, plural: '(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3)', one: 0 },
  ar: {
    nplurals: 6,
    plural: '(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)',
    one: 1,
  },
};

/** gettext's plural rule for a target language (two forms, n != 1, when it is not listed). */
export function gettextPlurals(lang: string): GettextPlurals {
  const code = lang.toLowerCase();
  return GETTEXT[code] ?? GETTEXT[code.split('-')[0] ?? ''] ?? NOT_ONE;
}

/** Plural elements of an ICU message (nested ones included), outermost first. */
function pluralsOf(
  elements: readonly MessageFormatElement[],
  out: MessageFormatElement[] = [],
): MessageFormatElement[] {
  for (const e of elements) {
    if (e.type === TYPE.plural || e.type === TYPE.select) {
      if (e.type === TYPE.plural && e.pluralType !== 'ordinal') out.push(e);
      for (const o of Object.values(e.options)) pluralsOf(o.value, out);
    }
  }
  return out;
}

/**
 * An ICU message with the plural branches of the target language: `one {# Datei} other {# Dateien}`
 * becomes, for Russian, `one {...} few {<other's>} many {<other's>} other {...}`; exact branches
 * (=0) stay. A message that is not ICU, or whose branches already fit, comes back unchanged.
 */
export function icuPluralsFor(message: string, lang: string): string {
  if (!/\bplural\b/.test(message)) return message;
  // One plural at a time: a rewrite moves the offsets of the plurals after and inside it.
  for (let pass = 0; pass < 20; pass++) {
    let elements: MessageFormatElement[];
    try {
      elements = parse(message, { captureLocation: true, ignoreTag: true });
    } catch {
      return message;
    }
    const splice = pluralsOf(elements)
      .map((p) => branchesSplice(message, p, lang))
      .find((s) => s !== undefined);
    if (!splice) return message;
    message = applySplices(message, [splice]);
  }
  return message;
}

/** A plural's branches (category and `{...}` as written) and where they are, from the first category on. */
function branchesOf(
  message: string,
  p: MessageFormatElement,
): { start: number; end: number; options: Array<{ category: string; raw: string }> } | undefined {
  if (p.type !== TYPE.plural) return undefined;
  const options: Array<{ category: string; raw: string }> = [];
  let start = Infinity;
  let end = 0;
  for (const [key, o] of Object.entries(p.options)) {
    if (!o.location) return undefined;
    start = Math.min(start, message.lastIndexOf(key, o.location.start.offset));
    end = Math.max(end, o.location.end.offset);
    options.push({ category: key, raw: message.slice(o.location.start.offset, o.location.end.offset) });
  }
  return { start, end, options };
}

function branchesSplice(message: string, p: MessageFormatElement, lang: string): Splice | undefined {
  const { start, end, options } = branchesOf(message, p) ?? {};
  if (!options || start === undefined || end === undefined) return undefined;
  const exact = options.filter((o) => o.category.startsWith('='));
  const forms = formsFor(
    options.filter((o) => !o.category.startsWith('=')),
    lang,
  );
  if (!forms) return undefined;
  const text = [
    ...exact.map((o) => `${o.category} ${o.raw}`),
    ...forms.map(([c, donor]) => `${c} ${donor.raw}`),
  ];
  return { start, end, text: text.join(' ') };
}

/**
 * A target's ICU message read back in the plural branches of its source message `like` (plurals
 * paired in order, outermost first): the branches the target language added (icuPluralsFor: Polish
 * `few`, `many` of an English `one, other`) are left out of `message` and listed, each as written
 * (`few {# pliki}`). A message that is not ICU, or has no branch its source lacks, comes back whole.
 */
export function icuPluralsBack(message: string, like: string): { message: string; added: string[] } {
  const added: string[] = [];
  const parsed = (m: string): MessageFormatElement[] | undefined => {
    try {
      return parse(m, { captureLocation: true, ignoreTag: true });
    } catch {
      return undefined;
    }
  };
  if (!/\bplural\b/.test(message)) return { message, added };
  const source = parsed(like);
  if (!source) return { message, added };
  const categories = pluralsOf(source).map((p) => (p.type === TYPE.plural ? Object.keys(p.options) : []));
  // One plural at a time, as icuPluralsFor: taking branches out moves the offsets after them.
  for (let pass = 0; pass < 20; pass++) {
    const elements = parsed(message);
    if (!elements) break;
    let splice: Splice | undefined;
    for (const [i, p] of pluralsOf(elements).entries()) {
      const b = branchesOf(message, p);
      const known = categories[i];
      if (!b || !known || b.options.every((o) => known.includes(o.category))) continue;
      const kept = b.options.filter((o) => known.includes(o.category));
      for (const o of b.options) if (!known.includes(o.category)) added.push(`${o.category} ${o.raw}`);
      splice = { start: b.start, end: b.end, text: kept.map((o) => `${o.category} ${o.raw}`).join(' ') };
      break;
    }
    if (!splice) break;
    message = applySplices(message, [splice]);
  }
  return { message, added };
}
