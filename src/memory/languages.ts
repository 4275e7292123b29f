// The languages of an exchange file (TMX xml:lang, XLIFF srcLang) as the manifest writes them:
// region-tagged tags map onto the manifest's targets (de-DE → de; pt-BR → pt-br where the manifest
// asks for pt-br, pt where it asks for pt); a tag whose region the manifest does not ask for and
// cannot do without (en where the targets are en-gb and en-us) maps onto none.

/** BCP 47 as exchange files write it: a language, then subtags (script, region, variants). */
const TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export function isLanguageTag(tag: string): boolean {
  return TAG.test(tag);
}

/** Chinese by region, where the manifest writes the script (DeepL's zh-hans, zh-hant). */
const CHINESE_SCRIPT: Record<string, string> = {
  'zh-cn': 'zh-hans',
  'zh-sg': 'zh-hans',
  'zh-tw': 'zh-hant',
  'zh-hk': 'zh-hant',
  'zh-mo': 'zh-hant',
};

/** The manifest language (lower-case) of `tag` among `languages`, or undefined. */
export function manifestLanguage(tag: string, languages: Iterable<string>): string | undefined {
  const wanted = tag.toLowerCase().replace(/_/g, '-');
  const have = new Set(languages);
  if (have.has(wanted)) return wanted;
  const script = CHINESE_SCRIPT[wanted];
  if (script && have.has(script)) return script;
  const primary = wanted.split('-')[0] as string;
  return have.has(primary) ? primary : undefined;
}

/** A manifest language as exchange files write it (pt-br → pt-BR, zh-hans → zh-Hans). */
export function exchangeLanguage(lang: string): string {
  const [primary, ...rest] = lang.split('-');
  return [
    primary,
    ...rest.map((s) =>
      s.length === 2 ? s.toUpperCase() : s.length === 4 ? s[0]?.toUpperCase() + s.slice(1) : s,
    ),
  ].join('-');
}
