import { readFile } from 'node:fs/promises';
import { decodeText } from '../formats/text-encoding.js';
import { digestXml } from './canonical-xml.js';
import { digestOf } from './hash.js';
import type { ContentDigest } from './types.js';

// XLIFF: the XML as the reader's tokenizer reads it (formats/xml.ts), in canonical form without
// comments; the encoding, a byte order mark and the line-ending convention are not content.
// docs/content-digest.md has the table.

/** Each trans-unit (1.2) or unit (2.x) is a unit for `plan --why`. */
export async function digestXliff(path: string): Promise<ContentDigest> {
  const { text } = decodeText(await readFile(path), 'the .xliff file');
  const part = digestXml('xliff', text, {
    textElements: new Set(['source', 'target']),
    unit: (local, attrs) =>
      local === 'trans-unit' || local === 'unit' ? `unit ${attrs.get('id') ?? '?'}` : undefined,
  });
  return digestOf('xliff', [part]);
}
