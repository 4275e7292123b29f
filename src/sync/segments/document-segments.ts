import {
  openDocument,
  segmentCharacters,
  segmentText,
  taggedText,
  type OpenedDocument,
  type Segment,
} from '../../documents/index.js';
import type { SegmentText } from './batches.js';
import { anySettingsKey, segmentKey } from './memory-key.js';

export { methodRefusal, segmentPathRefusal } from './method-refusal.js';

// A source document as the segment path sees it: its segments in order, each with the text sent for
// it (inline formatting as tags) and its segment memory key.

export interface KeyedSegment extends SegmentText {
  segment: Segment;
  key: string;
  /** Its key without settings: where a translation memory imported or aligned keeps it. */
  anyKey: string;
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
      anyKey: anySettingsKey(tagged, k.sourceLang, k.targetLang),
      characters: segmentCharacters(segment),
    });
  }
  return { doc, segments };
}
