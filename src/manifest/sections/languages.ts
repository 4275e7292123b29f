// The languages the document service accepts, as the manifest writes them (lower-case; sent
// upper-case).

export const SOURCE_LANGUAGES = [
  'ar',
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'es',
  'et',
  'fi',
  'fr',
  'he',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
] as const;

/** The regional variants a translation can be asked for, by the source language they vary. */
const VARIANTS = {
  en: ['en-gb', 'en-us'],
  pt: ['pt-br', 'pt-pt'],
  zh: ['zh-hans', 'zh-hant'],
} as const;

type TargetLanguage = (typeof SOURCE_LANGUAGES)[number] | (typeof VARIANTS)[keyof typeof VARIANTS][number];

/** Target languages the document service accepts: each source language, its variants after it. */
export const TARGET_LANGUAGES = SOURCE_LANGUAGES.flatMap((lang): TargetLanguage[] => [
  lang,
  ...(lang in VARIANTS ? VARIANTS[lang as keyof typeof VARIANTS] : []),
]) as unknown as readonly [TargetLanguage, ...TargetLanguage[]];

/** The regional variants of a target written without one (`pt` → pt-br, pt-pt), if it has any. */
export function variantsOf(lang: string): readonly string[] | undefined {
  return lang in VARIANTS ? VARIANTS[lang as keyof typeof VARIANTS] : undefined;
}
