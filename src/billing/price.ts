import type { Leverage } from './leverage.js';
import { extensionOf, isMinimumBilled, isUncounted } from '../documents/format-registry.js';
import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';

// What one planned upload will bill, as the service bills it: the source's characters, at least
// MINIMUM_BILLED_CHARACTERS for the formats the registry says (pptx/docx/doc/xlsx/pdf; the minimum
// shown apart), images nothing (their text is not counted). Pure: the character count comes from
// ./count.ts.

export interface UploadPrice {
  /** Characters of the document as the service counts them; null when they could not be counted. */
  characters: number | null;
  /** Characters the 50,000 minimum adds over the real count (0 for other formats). */
  minimumAdded: number;
  /**
   * What the upload bills: characters + minimumAdded. A document whose characters could not be
   * counted bills at least the minimum of its format (0 for formats without one): a lower bound.
   */
  billed: number;
  /** A target translated segment by segment (method: segments): what the plan sends and keeps. */
  segments?: SegmentsQuote;
  /** Text requests it sends (method: segments); absent for an upload. */
  textRequests?: number;
}

/**
 * What a segment-path translation of one document sends (docs/segments.md): its segments, those the
 * segment memory holds (or another document of the plan sends first), those sent and their
 * characters (billed, no minimum), and what the document path would bill for the same document.
 */
export interface SegmentsQuote {
  segments: number;
  fromMemory: number;
  sent: number;
  /** Characters of the segments sent (their text: the service bills no inline tags). */
  characters: number;
  /** What uploading the whole document would bill (its characters, at least the minimum). */
  documentPath: number;
  /**
   * Text requests that send them, cut to the service's limits as the run's pool cuts them, packed
   * with the plan's other documents of the same languages and settings: those its texts open (a
   * request is counted once, for the document whose text comes first in it).
   */
  requests: number;
  /**
   * Characters of `context` those requests upload (the neighbours of short texts and labels, never
   * billed, but sent): what the service counts as their context.
   */
  context?: number;
  /** Its segments by where their translation comes from (./leverage.ts). */
  leverage?: Leverage;
}

/** The price of a document translated through the segment path: the characters sent, no minimum. */
export function priceSegments(q: SegmentsQuote): UploadPrice {
  return {
    characters: q.characters,
    minimumAdded: 0,
    billed: q.characters,
    segments: q,
    textRequests: q.requests,
  };
}

/** The price of re-sending every segment of a document of `characters` (no minimum, no memory). */
export function priceAllSegments(characters: number | null): UploadPrice {
  // How its segments fall into requests is not known here: at least one.
  return { characters, minimumAdded: 0, billed: characters ?? 0, textRequests: 1 };
}

/** Whether this file's format is translated without a character count (images): billed 0. */
export function isUncountedFormat(file: string): boolean {
  return isUncounted(extensionOf(file));
}

/** Whether documents of this file's format are billed at least MINIMUM_BILLED_CHARACTERS. */
export function hasMinimum(file: string): boolean {
  return isMinimumBilled(extensionOf(file));
}

/** The price of uploading `file` (its name decides the format) whose text has `characters`. */
export function priceUpload(file: string, characters: number | null): UploadPrice {
  if (isUncountedFormat(file)) return { characters: 0, minimumAdded: 0, billed: 0 };
  const floor = hasMinimum(file) ? MINIMUM_BILLED_CHARACTERS : 0;
  if (characters === null) return { characters: null, minimumAdded: 0, billed: floor };
  const minimumAdded = Math.max(0, floor - characters);
  return { characters, minimumAdded, billed: characters + minimumAdded };
}
