// Kinds of content told by their first bytes (a zip archive, an OLE compound file, a PDF, an
// image). The format registry says which kind each binary format starts with; the pre-flight check
// and the readers of doc and images compare a file's first bytes with it.

export type ContentKind = 'zip' | 'ole' | 'pdf' | 'png' | 'jpeg' | 'gif' | 'rtf';

export interface KindBytes {
  /** What a file of the kind starts with. */
  bytes: readonly number[];
  /** What a person calls it. */
  name: string;
  /**
   * What a whole file of the kind ends with (a PNG's IEND chunk, a JPEG's end-of-image marker),
   * found within its last `inLast` bytes (a JPEG may carry some padding after its marker).
   */
  end?: { bytes: readonly number[]; inLast: number };
}

export const CONTENT_KINDS: Readonly<Record<ContentKind, KindBytes>> = {
  zip: { bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a zip archive (docx, pptx, xlsx)' },
  ole: { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], name: 'an OLE compound file (doc)' },
  pdf: { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], name: 'a PDF' },
  png: {
    bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    name: 'a PNG image',
    end: { bytes: [0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82], inLast: 8 },
  },
  jpeg: { bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image', end: { bytes: [0xff, 0xd9], inLast: 64 } },
  gif: { bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  rtf: { bytes: [0x7b, 0x5c, 0x72, 0x74, 0x66], name: 'an RTF document' },
};

/** Bytes of a file's beginning that tell its kind (a PDF header may follow up to 1 KB of junk). */
export const KIND_HEAD_BYTES = 1024;

/** Whether `head` holds `kind`'s first bytes at offset `at`. */
export function startsAs(head: Uint8Array, kind: ContentKind, at = 0): boolean {
  const bytes = CONTENT_KINDS[kind].bytes;
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

/** Where '%PDF-' starts in `head` (PDF readers accept it within the first 1024 bytes), or -1. */
export function pdfHeaderAt(head: Uint8Array): number {
  const end = Math.min(head.length, KIND_HEAD_BYTES) - CONTENT_KINDS.pdf.bytes.length;
  for (let i = 0; i <= end; i++) if (startsAs(head, 'pdf', i)) return i;
  return -1;
}

/** The kind of content `head` starts with (a PDF header anywhere in it), or undefined. */
export function contentKindOf(head: Uint8Array): ContentKind | undefined {
  for (const kind of Object.keys(CONTENT_KINDS) as ContentKind[])
    if (kind !== 'pdf' && startsAs(head, kind)) return kind;
  return pdfHeaderAt(head) >= 0 ? 'pdf' : undefined;
}
