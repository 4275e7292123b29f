import { formatOf, isServiceFormat } from '../../documents/format-registry.js';
import { unsupportedMessage } from '../plan/source-rules.js';

// Which method can translate which format, as the format registry says: asked by every plan, and
// the registry loads no reader (a plan that reads no document loads none).

const SEGMENTS_REFUSAL = {
  'not written back': 'its text cannot be written back in place',
  'no segments': 'it has no text segments',
} as const;

/** Why a file cannot be translated with method: segments (undefined: it can). */
export function segmentPathRefusal(ext: string): string | undefined {
  const segments = formatOf(ext)?.segments ?? true;
  if (segments === true) return undefined;
  return `method: segments cannot translate .${ext} files (${SEGMENTS_REFUSAL[segments]}); they stay on the document path: give this target (or mapping) method: document, or exclude them`;
}

/**
 * Why a target cannot translate a file of this format with its method (undefined: it can): pdf, doc
 * and images are the document path's; Markdown and string files (what only the document layer
 * reads) the segment path's.
 */
export function methodRefusal(segments: boolean, ext: string): string | undefined {
  if (segments) return segmentPathRefusal(ext);
  return isServiceFormat(ext) ? undefined : unsupportedMessage(ext);
}
