// A document's content digest: what a translation of it depends on, hashed, without the bytes that
// cannot change a translation (container, metadata). Two files with the same digest translate alike,
// so a file saved again without a change keeps its outputs. docs/content-digest.md lists, per
// format, what is in and what is left out, and why.

/** One part of a document (a zip entry, a PDF page, the whole text) as the digest saw it. */
export interface PartDigest {
  /** The part's name: "word/document.xml", "page 3", "text". */
  name: string;
  /** Short hash of the part's canonical content. */
  hash: string;
  /**
   * The part's units in order (paragraphs, cells, cues, lines): "label\ttext-hash full-hash", short
   * hashes, so that `plan --why` can say which paragraph changed and whether its text or only its form.
   */
  units?: string[];
}

export interface ContentDigest {
  /** sha256 (hex) of the canonical content of every part, in part-name order. */
  digest: string;
  parts: PartDigest[];
}

/** Version of the digest rules: a digest made by other rules is never compared with this one's. */
export const DIGEST_RULES = 1;
