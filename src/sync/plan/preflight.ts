// Pre-flight content check: is a file worth an upload? Each upload may be billed (docx, pptx, xlsx,
// doc and pdf at least 50,000 characters), and a file the service cannot read comes back as an
// error, once per target and run until max_attempts. So files that are surely broken are skipped
// before upload: empty files, and files whose first bytes contradict their extension (a .docx that
// is not a zip, a .pdf without a PDF header). Pure: the caller reads the first PREFLIGHT_HEAD_BYTES.

/** Bytes of a file's beginning the check needs (a PDF header may follow up to 1 KB of junk). */
export const PREFLIGHT_HEAD_BYTES = 1024;

export type PreflightResult = { ok: true } | { ok: false; reason: string };

/** Kinds of content recognised by their first bytes. */
type ContentKind = 'zip' | 'ole' | 'pdf' | 'png' | 'jpeg' | 'gif' | 'rtf';

const SIGNATURES: Array<{ kind: ContentKind; bytes: number[]; name: string }> = [
  { kind: 'zip', bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a zip archive (docx, pptx, xlsx)' },
  {
    kind: 'ole',
    bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    name: 'an OLE compound file (doc)',
  },
  { kind: 'pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], name: 'a PDF' },
  { kind: 'png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], name: 'a PNG image' },
  { kind: 'jpeg', bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { kind: 'gif', bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  { kind: 'rtf', bytes: [0x7b, 0x5c, 0x72, 0x74, 0x66], name: 'an RTF document' },
];

/** What each binary extension must start with; text formats (txt, html, xliff, srt) are not checked. */
const EXPECTED: Record<string, { kind: ContentKind; what: string }> = {
  docx: { kind: 'zip', what: 'a Word document (a zip archive)' },
  pptx: { kind: 'zip', what: 'a PowerPoint presentation (a zip archive)' },
  xlsx: { kind: 'zip', what: 'an Excel workbook (a zip archive)' },
  doc: { kind: 'ole', what: 'a Word 97-2003 document (an OLE compound file)' },
  pdf: { kind: 'pdf', what: "a PDF (starting with '%PDF-')" },
  png: { kind: 'png', what: 'a PNG image' },
  jpg: { kind: 'jpeg', what: 'a JPEG image' },
  jpeg: { kind: 'jpeg', what: 'a JPEG image' },
};

function startsWith(head: Uint8Array, bytes: number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

/** The kind of content `head` starts with (a PDF header anywhere in it), or undefined. */
function contentKind(head: Uint8Array): ContentKind | undefined {
  for (const s of SIGNATURES) if (s.kind !== 'pdf' && startsWith(head, s.bytes)) return s.kind;
  return pdfHeaderAt(head) >= 0 ? 'pdf' : undefined;
}

/** Where '%PDF-' starts in `head` (readers accept it within the first 1024 bytes), or -1. */
function pdfHeaderAt(head: Uint8Array): number {
  const pdf = SIGNATURES.find((s) => s.kind === 'pdf')!.bytes;
  const end = Math.min(head.length, PREFLIGHT_HEAD_BYTES) - pdf.length;
  for (let i = 0; i <= end; i++) if (startsWith(head, pdf, i)) return i;
  return -1;
}

function describe(kind: ContentKind | undefined, head: Uint8Array): string {
  if (kind) return SIGNATURES.find((s) => s.kind === kind)!.name;
  const printable = head
    .subarray(0, 64)
    .every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
  return printable ? 'text' : 'unrecognised binary data';
}

/**
 * Whether a file of extension `ext` (without dot, any case), `size` bytes, beginning with `head`
 * should be uploaded; otherwise the reason, worded for the person who owns the file.
 */
export function preflight(ext: string, size: number, head: Uint8Array): PreflightResult {
  if (size === 0) return { ok: false, reason: 'the file is empty (0 bytes): nothing to translate' };
  const expected = EXPECTED[ext.toLowerCase()];
  if (!expected) return { ok: true };
  const kind = contentKind(head);
  if (kind === expected.kind) return { ok: true };
  const name = ext.toLowerCase();
  if (kind === 'ole' && expected.kind === 'zip') {
    // Office keeps a password-protected docx/pptx/xlsx in an OLE container.
    return {
      ok: false,
      reason: `the .${name} file is password-protected (encrypted): the service cannot read it; save it without a password`,
    };
  }
  return {
    ok: false,
    reason: `the content does not match the .${name} extension: expected ${expected.what}, found ${describe(kind, head)}; the file is damaged or misnamed`,
  };
}
