import { DOCUMENT_EXTENSIONS } from '../../api/types.js';
import { unsupportedMessage } from '../plan/source-rules.js';

// Which method can translate which format: asked by every plan, so kept apart from the document
// layer's readers (a plan that reads no document does not load them).

/** Formats the document layer reads but cannot write back byte for byte: the document path only. */
export const DOCUMENT_PATH_ONLY = ['pdf', 'doc', 'png', 'jpg', 'jpeg'] as const;

/** Why a file cannot be translated with method: segments (undefined: it can). */
export function segmentPathRefusal(ext: string): string | undefined {
  if (!(DOCUMENT_PATH_ONLY as readonly string[]).includes(ext)) return undefined;
  const what =
    ext === 'pdf' || ext === 'doc' ? 'its text cannot be written back in place' : 'it has no text segments';
  return `method: segments cannot translate .${ext} files (${what}); they stay on the document path: give this target (or mapping) method: document, or exclude them`;
}

/**
 * Why a target cannot translate a file of this format with its method (undefined: it can): pdf, doc
 * and images are the document path's; Markdown and string files (what only the document layer
 * reads) the segment path's.
 */
export function methodRefusal(segments: boolean, ext: string): string | undefined {
  if (segments) return segmentPathRefusal(ext);
  return (DOCUMENT_EXTENSIONS as readonly string[]).includes(ext) ? undefined : unsupportedMessage(ext);
}
