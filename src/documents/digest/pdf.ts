import { createHash, type Hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  PDFArray,
  PDFContentStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  decodePDFRawStream,
  type PDFObject,
} from 'pdf-lib';
import { digestOf, type HashedPart } from './hash.js';
import type { ContentDigest } from './types.js';

// PDF: each page as the objects it is drawn from (content streams, fonts, images, annotations),
// followed through their references and hashed by what they hold, never by object number; streams
// by their decoded bytes where pdf-lib can decode them. Left out: the trailer's /ID, the document
// information dictionary (dates, producer), XMP metadata streams, and how the file is laid out
// (object numbers, object streams, cross-reference form, incremental updates).

/** Page and object keys that describe the file, not what is drawn: never followed. */
const SKIPPED_KEYS = new Set(['/Parent', '/Metadata', '/PieceInfo', '/LastModified', '/StructParents']);
/** Stream keys that describe the encoding, left out when the stream was decoded. */
const ENCODING_KEYS = new Set(['/Length', '/Filter', '/DecodeParms', '/DL']);

class PdfHasher {
  private readonly memo = new Map<string, string>();
  constructor(private readonly doc: PDFDocument) {}

  /** Hash of an object and everything it refers to (a reference cycle hashes as a mark). */
  hashOf(obj: PDFObject): string {
    if (obj instanceof PDFRef) {
      const key = obj.toString();
      const known = this.memo.get(key);
      if (known !== undefined) return known;
      this.memo.set(key, 'cycle');
      const target = this.doc.context.lookup(obj);
      const h = target === undefined ? 'null' : this.hashOf(target);
      this.memo.set(key, h);
      return h;
    }
    const h = createHash('sha256');
    this.write(h, obj);
    return h.digest('hex');
  }

  private write(h: Hash, obj: PDFObject): void {
    if (obj instanceof PDFRef) {
      h.update(`R${this.hashOf(obj)}`);
    } else if (obj instanceof PDFDict) {
      this.writeDict(h, obj, new Set());
    } else if (obj instanceof PDFArray) {
      h.update('[');
      for (let i = 0; i < obj.size(); i++) {
        this.write(h, obj.get(i));
        h.update(' ');
      }
      h.update(']');
    } else if (obj instanceof PDFStream) {
      const bytes = streamBytes(obj);
      this.writeDict(h, obj.dict, bytes.decoded ? ENCODING_KEYS : new Set());
      h.update('stream').update(bytes.content);
    } else {
      h.update(obj.toString());
    }
  }

  private writeDict(h: Hash, dict: PDFDict, skip: ReadonlySet<string>): void {
    const entries = dict
      .entries()
      .map(([k, v]) => [k.toString(), v] as const)
      .filter(([k]) => !SKIPPED_KEYS.has(k) && !skip.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    h.update('<<');
    for (const [k, v] of entries) {
      h.update(k).update(' ');
      this.write(h, v);
      h.update(' ');
    }
    h.update('>>');
  }
}

/** A stream's bytes, decoded where pdf-lib can (Flate, LZW, ASCII filters), else as stored. */
function streamBytes(s: PDFStream): { content: Uint8Array; decoded: boolean } {
  if (s instanceof PDFRawStream) {
    if (s.dict.get(PDFName.of('Filter')) === undefined) return { content: s.contents, decoded: true };
    try {
      return { content: decodePDFRawStream(s).decode(), decoded: true };
    } catch {
      return { content: s.contents, decoded: false }; // an image filter (DCT, JPX ...): its bytes
    }
  }
  if (s instanceof PDFContentStream) return { content: s.getUnencodedContents(), decoded: true };
  return { content: s.getContents(), decoded: false };
}

export async function digestPdf(path: string): Promise<ContentDigest> {
  const doc = await PDFDocument.load(await readFile(path), {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false,
  });
  const hasher = new PdfHasher(doc);
  const parts: HashedPart[] = doc.getPages().map((page, i) => {
    const full = hasher.hashOf(page.ref);
    return { full, summary: { name: `page ${String(i + 1).padStart(5, '0')}`, hash: full.slice(0, 16) } };
  });
  return digestOf('pdf', parts);
}
