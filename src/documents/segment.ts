// The unit of translatable text every format reader yields (Okapi's "text unit"): a paragraph, a
// line, a cell, an attribute value, in document order, cut into the pieces that carry their own
// formatting.

/**
 * One run of a segment. A text piece is translated; a `code` piece (an html <br> or <code>, an
 * XLIFF <ph/>, an element marked translate="no") is part of the segment but comes back unchanged.
 * The pieces of a paragraph are its formatted runs: a translation gives one text per piece, so each
 * run keeps its formatting (bold stays bold).
 */
export interface Piece {
  readonly text: string;
  readonly code?: true;
}

/** What a segment is in its document: where a checker, a digest or a person looks for it. */
export type SegmentRole =
  /** A line of a plain-text file. */
  | 'line'
  /** A text line of a subtitle cue. */
  | 'subtitle'
  /** Body text: a paragraph (docx, doc, pdf, pptx shape), an html block. */
  | 'text'
  /** A heading (html h1-h6, a pdf line set larger than the body). */
  | 'heading'
  /** An attribute value shown to a reader (html title, alt, placeholder, aria-label, meta description). */
  | 'attribute'
  /** An XLIFF segment (2.x) or trans-unit (1.2). */
  | 'unit'
  /** A spreadsheet cell's text. */
  | 'cell'
  | 'header'
  | 'footer'
  /** Footnotes, endnotes, text boxes. */
  | 'note'
  /** Review comments (docx, xlsx). */
  | 'comment'
  /** Speaker notes of a slide. */
  | 'speaker-notes'
  /** A keyed value of a string resource file (JSON, YAML, PO, Android, iOS, .properties): where is "key <key>". */
  | 'string';

export interface Segment {
  /** Position among the document's segments, from 0, in document order: the key of a translation. */
  readonly id: number;
  readonly role: SegmentRole;
  /** Where it is, for a person: "line 12", "cue 3", "word/document.xml paragraph 4", "page 2". */
  readonly where: string;
  /** The line it starts on (1-based) where `where` names none (a string file's key): an editor's jump. */
  readonly line?: number;
  readonly pieces: readonly Piece[];
}

/** The segment's translatable text: its text pieces joined (code pieces left out). */
export function segmentText(segment: Pick<Segment, 'pieces'>): string {
  return segment.pieces
    .filter((p) => !p.code)
    .map((p) => p.text)
    .join('');
}

/** True when a piece list has text to translate (a text piece that is not blank). */
export function hasTranslatableText(pieces: readonly Piece[]): boolean {
  return pieces.some((p) => !p.code && p.text.trim() !== '');
}

/**
 * Characters the segment is billed for: code points of its text pieces, whitespace included, code
 * pieces not (the count the local service bills, and so the estimate pricing shows for the real one).
 */
export function segmentCharacters(segment: Pick<Segment, 'pieces'>): number {
  let n = 0;
  for (const p of segment.pieces) if (!p.code) for (const _ of p.text) n++;
  return n;
}
