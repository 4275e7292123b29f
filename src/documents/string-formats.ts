// Which extensions are string resource files (docs/strings/). Kept apart from their readers so that
// pricing and status can ask without loading the parsers.

/** Extensions of string resource files: documents only on the segment path (docs/strings/). */
export const STRING_FORMATS = [
  'json',
  'arb',
  'yaml',
  'yml',
  'po',
  'pot',
  'xml',
  'strings',
  'stringsdict',
  'properties',
] as const;

export function isStringFormat(format: string): boolean {
  return (STRING_FORMATS as readonly string[]).includes(format.toLowerCase());
}
