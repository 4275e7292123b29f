// Pre-flight content check: is a file worth an upload? Each upload may be billed (docx, pptx, xlsx,
// doc and pdf at least 50,000 characters), and a file the service cannot read comes back as an
// error, once per target and run until max_attempts. So files that are surely broken are skipped
// before upload: empty files, and files whose first bytes contradict their extension (a .docx that
// is not a zip, a .pdf without a PDF header). Pure: the caller reads the first PREFLIGHT_HEAD_BYTES.
import {
  CONTENT_KINDS,
  contentKindOf,
  KIND_HEAD_BYTES,
  type ContentKind,
} from '../../documents/content-kinds.js';
import { formatOf } from '../../documents/format-registry.js';

/** Bytes of a file's beginning the check needs (a PDF header may follow up to 1 KB of junk). */
export const PREFLIGHT_HEAD_BYTES = KIND_HEAD_BYTES;

export type PreflightResult = { ok: true } | { ok: false; reason: string };

function describe(kind: ContentKind | undefined, head: Uint8Array): string {
  if (kind) return CONTENT_KINDS[kind].name;
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
  // What each binary format must start with is the format registry's; text formats are not checked.
  const expected = formatOf(ext)?.signature;
  if (!expected) return { ok: true };
  const kind = contentKindOf(head);
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
