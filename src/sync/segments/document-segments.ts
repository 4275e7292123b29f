import {
  openDocument,
  segmentCharacters,
  segmentText,
  taggedText,
  type FormatOptions,
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
  /** How the document is read (UploadDocumentRequest.segments.read: a CSV file's columns). */
  read?: FormatOptions | undefined;
}

/** A keyed segment as eachSegmentBatch hands it on: its Segment only when asked for. */
export type BatchedSegment = Omit<KeyedSegment, 'segment'> & { segment?: Segment };

/** A segment of a document with its text, keys and characters. */
function keyed(segment: Segment, k: KeyOptions): KeyedSegment {
  return { segment, ...keyFields(segment, k) };
}

/** A segment's text, keys and characters, without the segment. */
function keyFields(segment: Segment, k: KeyOptions): Omit<KeyedSegment, 'segment'> {
  const tagged = taggedText(segment);
  return {
    tagged,
    plain: segmentText(segment),
    key: segmentKey(tagged, k.sourceLang, k.targetLang, k.settings),
    anyKey: anySettingsKey(tagged, k.sourceLang, k.targetLang),
    characters: segmentCharacters(segment),
  };
}

const readOptions = (format: string, k: KeyOptions) => ({
  format,
  ...(k.read ? { formatOptions: k.read } : {}),
});

/** Read a document's segments with their keys (throws DocumentFormatError for a broken file). */
export async function readSegments(absPath: string, ext: string, k: KeyOptions): Promise<SegmentedDocument> {
  const doc = await openDocument(absPath, readOptions(ext, k));
  const segments: KeyedSegment[] = [];
  for await (const segment of doc.segments()) segments.push(keyed(segment, k));
  return { doc, segments };
}

/**
 * Segments handed on at a time by eachSegmentBatch: one memory look-up's worth. Few: a batch is held
 * across the look-up, and V8 soon allocates what lives that long straight into old space
 * (allocation-site pretenuring), where it drags its texts until the next full collection (issue 44:
 * `plan` of a 50 MB string file peaked at 350 MB RSS with batches of 2,000).
 */
export const SEGMENT_BATCH = 64;

/**
 * A document's keyed segments, `batchSize` at a time, none kept after its batch (throws
 * DocumentFormatError for a broken file): what needs only to count and look up (a plan's price)
 * holds one batch of a 500,000-value string file, not all of it. The Segments themselves only with
 * `keepSegments` (they drag their pieces along).
 */
export async function eachSegmentBatch(
  absPath: string,
  ext: string,
  k: KeyOptions,
  take: (batch: readonly BatchedSegment[]) => Promise<void>,
  opts: { keepSegments?: boolean; batchSize?: number } = {},
): Promise<void> {
  const size = opts.batchSize ?? SEGMENT_BATCH;
  const doc = await openDocument(absPath, readOptions(ext, k));
  let batch: BatchedSegment[] = [];
  for await (const segment of doc.segments()) {
    batch.push(opts.keepSegments ? keyed(segment, k) : keyFields(segment, k));
    if (batch.length < size) continue;
    await take(batch);
    batch = [];
  }
  if (batch.length) await take(batch);
}
