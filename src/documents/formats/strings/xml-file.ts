// The first step of every XML string resource reader (Android, .resx, .stringsdict): the file's
// text decoded as its bytes declare, checked well-formed, and its tokens with their offsets.
import { readFile } from 'node:fs/promises';
import { decodeText, type DecodedText } from '../text-encoding.js';
import { assertWellFormed, tokenize, type XmlToken } from '../xml.js';

export interface XmlFile {
  readonly decoded: DecodedText;
  readonly xml: string;
  readonly tokens: XmlToken[];
}

/** Reads the XML file at `path` (named `what` in errors) whole. */
export async function readXmlFile(path: string, what: string): Promise<XmlFile> {
  const decoded = decodeText(await readFile(path), what);
  const xml = decoded.text;
  assertWellFormed(xml, what);
  return { decoded, xml, tokens: [...tokenize(xml, what)] };
}
