import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isStringDocument, isStringFormat, openDocument, type FormatOptions } from '../documents/index.js';
import { readForChecks, segmentsForChecks, type ReadDocument } from './read.js';

// A string file's translation has the plural forms of its target language, not its source's: the
// writers give Japanese `other` alone and Arabic six forms (CLDR, src/documents/formats/strings/
// plurals.ts). Compared with the source as it is, a form the target does not have would read as a
// lost segment, and an ICU message's branches as missing inline code. So the checks compare an
// output with its source laid out as that target's file: the writer itself, given no translation,
// writes it (every value the source's text, in the target's plural forms).

export interface SourceFile {
  path: string;
  format: string;
  /** How it is read, from its mapping (a CSV file's columns). */
  read?: FormatOptions | undefined;
}

/**
 * The source at `source` read for the checks of its output in `outputFormat` for `targetLang`: a
 * string file as the writer lays it out for that language, any other document as it is. An empty
 * `targetLang` (unknown) reads the source as it is.
 */
export async function readSourceForTarget(
  source: SourceFile,
  outputFormat: string,
  targetLang: string,
): Promise<ReadDocument> {
  if (targetLang === '' || !isStringFormat(source.format))
    return readForChecks(source.path, source.format, 'source', undefined, source.read);
  const read = source.read ? { formatOptions: source.read } : {};
  const doc = await openDocument(source.path, { format: source.format, ...read });
  if (!isStringDocument(doc)) return segmentsForChecks(doc);
  const format = doc.outputFormats.includes(outputFormat)
    ? outputFormat
    : (doc.outputFormats[0] ?? source.format);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-qa-'));
  try {
    const laidOut = path.join(dir, `source.${format}`);
    await doc.write(() => undefined, { path: laidOut, format }, { targetLang });
    // Read as a translation: a gettext catalogue's forms are then its msgstr[n], as the output's are.
    return await readForChecks(laidOut, format, 'target', targetLang, source.read);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
