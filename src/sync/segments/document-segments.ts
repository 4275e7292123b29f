import {
  openDocument,
  segmentCharacters,
  segmentText,
  taggedText,
  type OpenedDocument,
  type Segment,
} from '../../documents/index.js';
import { DOCUMENT_EXTENSIONS } from '../../api/types.js';
import { unsupportedMessage } from '../plan/source-rules.js';
import type { SegmentText } from './batches.js';
import { segmentKey } from './memory-key.js';

// A source document as the segment path sees it: its segments in order, each with the text sent for
// it (inline formatting as tags) and its segment memory key.

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

export interface KeyedSegment extends SegmentText {
  segment: Segment;
  key: string;
  /** Characters billed for it: code points of its text (the service bills no markup with tag handling). */
  characters: number;
}

export interface SegmentedDocument {
  doc: OpenedDocument;
  segments: KeyedSegment[];
}

export interface KeyOptions {
  sourceLang: string | undefined;
  targetLang: string;
  /** Digest of the translation settings (UploadDocumentRequest.segments.settings). */
  settings: string;
}

/** Read a document's segments with their keys (throws DocumentFormatError for a broken file). */
export async function readSegments(absPath: string, ext: string, k: KeyOptions): Promise<SegmentedDocument> {
  const doc = await openDocument(absPath, { format: ext });
  const segments: KeyedSegment[] = [];
  for await (const segment of doc.segments()) {
    const tagged = taggedText(segment);
    segments.push({
      segment,
      tagged,
      plain: segmentText(segment),
      key: segmentKey(tagged, k.sourceLang, k.targetLang, k.settings),
      characters: segmentCharacters(segment),
    });
  }
  return { doc, segments };
}
