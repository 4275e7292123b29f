// Character encodings of plain-text formats (txt, srt, html): detect, decode, encode back the same way.
import iconv from 'iconv-lite';
import { DocumentFormatError } from '../errors.js';

export interface DecodedText {
  text: string;
  /** iconv-lite encoding name: utf-8, utf-16le, utf-16be, windows-1252, ... */
  encoding: string;
  bom: boolean;
}

const BOMS: Array<[number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

function bomOf(buf: Buffer): { encoding: string; length: number } | undefined {
  for (const [bytes, encoding] of BOMS) {
    if (bytes.every((b, i) => buf[i] === b)) return { encoding, length: bytes.length };
  }
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(buf: Buffer): boolean {
  try {
    utf8.decode(buf);
    return true;
  } catch {
    return false;
  }
}

/** True when the bytes look like a binary file rather than text in a single-byte or UTF-8 encoding. */
function looksBinary(buf: Buffer): boolean {
  const sample = buf.subarray(0, 64 * 1024);
  let control = 0;
  for (const b of sample) {
    if (b === 0) return true;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  return control > sample.length / 100;
}

/** A known encoding label in one spelling (HTML treats latin1 and ASCII labels as Windows-1252). */
function normaliseEncoding(label: string): string | undefined {
  const l = label.trim().toLowerCase();
  if (/^utf-?8$/.test(l)) return 'utf-8';
  if (/^(?:iso-?8859-1|latin-?1|l1|us-ascii|ascii|cp1252|windows-1252)$/.test(l)) return 'windows-1252';
  return iconv.encodingExists(l) ? l : undefined;
}

/**
 * Decodes text: a BOM decides (UTF-8, UTF-16LE/BE), else `declared` (e.g. an HTML meta charset),
 * else UTF-8 when valid, else Windows-1252. Binary content is a DocumentFormatError.
 */
export function decodeText(buf: Buffer, what: string, declared?: string): DecodedText {
  const bom = bomOf(buf);
  if (bom) {
    const body = buf.subarray(bom.length);
    if (bom.encoding === 'utf-8' && !isUtf8(body)) {
      throw new DocumentFormatError(`${what} starts with a UTF-8 byte order mark but is not valid UTF-8`);
    }
    if (bom.encoding !== 'utf-8' && body.length % 2 !== 0) {
      throw new DocumentFormatError(
        `${what} starts with a UTF-16 byte order mark but has an odd number of bytes`,
      );
    }
    const text = iconv.decode(body, bom.encoding);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000E-\u001A]/.test(text.slice(0, 65536))) {
      throw new DocumentFormatError(`${what} is a binary file, not text`);
    }
    return { text, encoding: bom.encoding, bom: true };
  }
  if (looksBinary(buf)) throw new DocumentFormatError(`${what} is a binary file, not text`);
  let encoding = declared ? normaliseEncoding(declared) : undefined;
  if (!encoding && isUtf8(buf)) encoding = 'utf-8';
  if (encoding === 'utf-8' && !isUtf8(buf)) {
    throw new DocumentFormatError(`${what} declares UTF-8 but is not valid UTF-8`);
  }
  encoding ??= 'windows-1252';
  return { text: iconv.decode(buf, encoding), encoding, bom: false };
}

/** True when every character of `text` survives the encoding. */
export function canEncode(text: string, encoding: string): boolean {
  if (/^utf-?(8|16)/i.test(encoding)) return true;
  return iconv.decode(iconv.encode(text, encoding), encoding) === text;
}

/** Encodes text as it was decoded (same encoding, BOM kept). */
export function encodeText(text: string, how: DecodedText): Buffer {
  const body = iconv.encode(text, how.encoding);
  if (!how.bom) return body;
  const bom = BOMS.find(([, e]) => e === how.encoding)?.[0] ?? [];
  return Buffer.concat([Buffer.from(bom), body]);
}

/** Encodes a translation like its source; when the source's legacy encoding cannot hold it, UTF-8 with a BOM. */
export function encodeTranslated(text: string, source: DecodedText): Buffer {
  return encodeText(text, canEncode(text, source.encoding) ? source : { text, encoding: 'utf-8', bom: true });
}
