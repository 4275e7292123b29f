import { digestOoxml } from './ooxml.js';
import { digestHtml, digestSrt, digestTxt, digestXliff } from './text-formats.js';
import type { ContentDigest } from './types.js';

// The content digest of a document, by format. Formats without one (doc, images) are decided by
// their bytes: undefined. A file the digest cannot read also answers undefined: its bytes decide,
// and the upload (which is where a broken file is reported) is not held back by the digest.

const DIGESTERS: Record<string, (path: string) => Promise<ContentDigest>> = {
  docx: (p) => digestOoxml(p, 'docx'),
  pptx: (p) => digestOoxml(p, 'pptx'),
  xlsx: (p) => digestOoxml(p, 'xlsx'),
  // pdf-lib loads on first use (as the PDF format's handler does).
  pdf: async (p) => (await import('./pdf.js')).digestPdf(p),
  html: digestHtml,
  htm: digestHtml,
  xlf: digestXliff,
  xliff: digestXliff,
  srt: digestSrt,
  txt: digestTxt,
};

/** Whether files of this extension (lower case, no dot) have a content digest. */
export function hasContentDigest(ext: string): boolean {
  return Object.hasOwn(DIGESTERS, ext);
}

/** The content digest of the file at `path`, or undefined when its bytes decide. */
export async function contentDigest(path: string, ext: string): Promise<ContentDigest | undefined> {
  const digester = DIGESTERS[ext];
  if (!digester) return undefined;
  try {
    return await digester(path);
  } catch {
    return undefined;
  }
}

export type { ContentDigest, PartDigest } from './types.js';
