/** The base language of a code or tag, lower case: pt-br → pt, zh-Hans → zh, en-GB → en. */
export function baseLanguage(code: string): string {
  return code.toLowerCase().split('-')[0] as string;
}

/** A BCP 47 tag of a target code: de -> de, pt-br -> pt-BR, zh-hans -> zh-Hans. */
export function languageTag(code: string): string {
  const [base = '', ...rest] = code.split('-');
  return [
    base.toLowerCase(),
    ...rest.map((p) => (p.length === 4 ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : p.toUpperCase())),
  ].join('-');
}

/**
 * How ecosystems spell a language in file names and files (docs/strings/README.md):
 *   bcp47    pt-BR, zh-Hans   web JSON, Rails YAML, iOS .lproj folders, XLIFF
 *   posix    pt_BR, zh_Hans   gettext, Java .properties, Flutter ARB
 *   android  pt-rBR, b+zh+Hans  Android values-* folders (a script needs the b+ form)
 */
export type LanguageStyle = 'bcp47' | 'posix' | 'android';

export function languageInStyle(code: string, style: LanguageStyle): string {
  const tag = languageTag(code);
  if (style === 'bcp47') return tag;
  if (style === 'posix') return tag.replaceAll('-', '_');
  const [base = '', ...rest] = tag.split('-');
  if (rest.length === 0) return base;
  if (rest.length === 1 && /^[A-Z]{2}$/.test(rest[0] ?? '')) return `${base}-r${rest[0]}`;
  return ['b', base, ...rest].join('+');
}
