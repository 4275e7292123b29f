import { formatOf } from '../format-registry.js';
import { withTimeout } from '../limits.js';
import type { ContentDigest } from './types.js';

// The content digest of a document, by format: the registry's digester (format-registry.ts), which
// makes it from the format's own reader's parse and loads on first use (a scan that reads no new
// content, a no-op, loads no parser). Formats without one (doc, images) are decided by their bytes:
// undefined. A file the digest cannot read also answers undefined: its bytes decide, and the upload
// (which is where a broken file is reported) is not held back by the digest.

/** A document that takes longer than this to digest (a hostile file) is decided by its bytes. */
const DIGEST_TIMEOUT_MS = 60_000;

/** Whether files of this extension (lower case, no dot) have a content digest. */
export function hasContentDigest(ext: string): boolean {
  return formatOf(ext)?.digester !== undefined;
}

/** The content digest of the file at `path`, or undefined when its bytes decide. */
export async function contentDigest(path: string, ext: string): Promise<ContentDigest | undefined> {
  const load = formatOf(ext)?.digester;
  if (!load) return undefined;
  try {
    const digest = (await load())(path);
    return await withTimeout(digest, DIGEST_TIMEOUT_MS, `${path}: content digest timed out`);
  } catch {
    return undefined;
  }
}

export type { ContentDigest, PartDigest } from './types.js';
