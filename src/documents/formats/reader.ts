// What every format module shares: the reader's signature, the list a reader builds its segments
// in, and the document object made from that list and a writer.
import type { OpenedDocument, TranslationOf, WriteOptions, WriteTarget } from '../document.js';
import type { ReadContext } from '../limits.js';
import { hasTranslatableText, type Piece, type Segment, type SegmentRole } from '../segment.js';

/** Reads the file at `path` (the dispatcher has checked that it is not empty). */
export type FormatReader = (path: string, ctx: ReadContext & { format: string }) => Promise<OpenedDocument>;

/** Segments in document order, numbered as they are added; pieces without text are not segments. */
export class SegmentList {
  readonly segments: Segment[] = [];

  /** The new segment, or undefined when `pieces` have no text to translate. */
  add(role: SegmentRole, where: string, pieces: readonly Piece[]): Segment | undefined {
    if (!hasTranslatableText(pieces)) return undefined;
    const segment: Segment = { id: this.segments.length, role, where, pieces };
    this.segments.push(segment);
    return segment;
  }
}

/**
 * The texts to write for a segment's pieces: its translation, else its source text. A translation
 * with the wrong number of pieces is a caller's bug, refused rather than written half.
 */
export function textsOut(
  segment: Segment | undefined,
  pieces: readonly Piece[],
  translationOf: TranslationOf,
): string[] {
  const translated = segment ? translationOf(segment) : undefined;
  if (!translated) return pieces.map((p) => p.text);
  if (translated.length !== pieces.length)
    throw new Error(
      `the translation of segment ${segment?.id} (${segment?.where}) has ${translated.length} pieces, not ${pieces.length}`,
    );
  return pieces.map((p, i) => (p.code ? p.text : (translated[i] as string)));
}

export interface DocumentParts {
  format: string;
  keepsLayout: boolean;
  outputFormats: readonly string[];
  segments: readonly Segment[];
  write(translationOf: TranslationOf, out: WriteTarget, opts: WriteOptions): Promise<void>;
}

/** The document object of a reader that has read all its segments. */
export function openedDocument(parts: DocumentParts): OpenedDocument {
  const { segments, write, ...rest } = parts;
  return {
    ...rest,
    async *segments() {
      yield* segments;
    },
    write,
  };
}
