/** A BCP 47 tag of a target code: de -> de, pt-br -> pt-BR, zh-hans -> zh-Hans. */
export function languageTag(code: string): string {
  const [base = '', ...rest] = code.split('-');
  return [
    base.toLowerCase(),
    ...rest.map((p) => (p.length === 4 ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : p.toUpperCase())),
  ].join('-');
}
