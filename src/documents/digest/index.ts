import { withTimeout } from '../limits.js';
import type { ContentDigest } from './types.js';

// The content digest of a document, by format. Formats without one (doc, images) are decided by
// their bytes: undefined. A file the digest cannot read also answers undefined: its bytes decide,
// and the upload (which is where a broken file is reported) is not held back by the digest.

// Each digester loads on first use (zip, XML, HTML parsers, pdf-lib): every scan imports this module,
// and a scan that reads no new content (a no-op) must not pay for loading them.
const ooxml = () => import('./ooxml.js');
const plainText = () => import('./plain-text.js');
const markup = () => import('./markup.js');
const markdown = () => import('./markdown.js');
const DIGESTERS: Record<string, (path: string) => Promise<ContentDigest>> = {
  docx: async (p) => (await ooxml()).digestOoxml(p, 'docx'),
  pptx: async (p) => (await ooxml()).digestOoxml(p, 'pptx'),
  xlsx: async (p) => (await ooxml()).digestOoxml(p, 'xlsx'),
  pdf: async (p) => (await import('./pdf.js')).digestPdf(p),
  html: async (p) => (await markup()).digestHtml(p),
  htm: async (p) => (await markup()).digestHtml(p),
  xlf: async (p) => (await markup()).digestXliff(p),
  xliff: async (p) => (await markup()).digestXliff(p),
  srt: async (p) => (await plainText()).digestSrt(p),
  txt: async (p) => (await plainText()).digestTxt(p),
  md: async (p) => (await markdown()).digestMarkdown(p),
  markdown: async (p) => (await markdown()).digestMarkdown(p),
};

/** A document that takes longer than this to digest (a hostile file) is decided by its bytes. */
const DIGEST_TIMEOUT_MS = 60_000;

/** Whether files of this extension (lower case, no dot) have a content digest. */
export function hasContentDigest(ext: string): boolean {
  return Object.hasOwn(DIGESTERS, ext);
}

/** The content digest of the file at `path`, or undefined when its bytes decide. */
export async function contentDigest(path: string, ext: string): Promise<ContentDigest | undefined> {
  const digester = DIGESTERS[ext];
  if (!digester) return undefined;
  try {
    return await withTimeout(digester(path), DIGEST_TIMEOUT_MS, `${path}: content digest timed out`);
  } catch {
    return undefined;
  }
}

export type { ContentDigest, PartDigest } from './types.js';
