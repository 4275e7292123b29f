// The root element of an XML file from its first bytes: what an .xml file is (Android string
// resources, XLIFF, an RSS feed, a layout) is told without reading the file whole.
import { open } from 'node:fs/promises';
import { notAndroidResources } from './strings/android.js';
import { localName, tokenize } from './xml.js';

/** Enough for any prolog (declaration, comments, DOCTYPE) a real file puts before its root. */
const PREFIX_BYTES = 64 * 1024;

function decodePrefix(buf: Buffer): string {
  if (buf[0] === 0xff && buf[1] === 0xfe) return new TextDecoder('utf-16le').decode(buf);
  if (buf[0] === 0xfe && buf[1] === 0xff) return new TextDecoder('utf-16be').decode(buf);
  // Not fatal: a character cut at the prefix's end is after the root's name.
  return new TextDecoder('utf-8').decode(buf);
}

/**
 * The root element's name as written (`resources`, `rss`, `xliff:xliff`), or undefined when the
 * file's first 64 KiB do not tell (not XML, unreadable): its reader then says what is wrong.
 */
export async function xmlRootName(path: string): Promise<string | undefined> {
  let prefix: string;
  try {
    const file = await open(path, 'r');
    try {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(PREFIX_BYTES), 0, PREFIX_BYTES, 0);
      prefix = decodePrefix(buffer.subarray(0, bytesRead));
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  try {
    for (const t of tokenize(prefix)) {
      if (t.kind === 'open') return t.name;
      if (t.kind === 'text' && prefix.slice(t.start, t.end).trim() !== '') return undefined;
    }
  } catch {
    // a tag cut at the prefix's end, or not XML
  }
  return undefined;
}

/**
 * Why the .xml file at `path` is not translated (undefined: it is an Android string resource file, or
 * its start does not tell and its reader decides). An .xml file is read as Android strings only: a
 * feed, a layout or a configuration is not one, and XLIFF has its own extensions.
 */
export async function notStringResources(path: string, name: string): Promise<string | undefined> {
  const root = await xmlRootName(path);
  if (root === undefined) return undefined;
  const problem = notAndroidResources(root, name);
  if (!problem) return undefined;
  const advice =
    localName(root) === 'xliff'
      ? 'it is XLIFF: name it .xlf or .xliff to have it translated as XLIFF'
      : 'an .xml file is translated only as Android strings (docs/strings/android.md): exclude it from the mapping';
  return `${problem}; ${advice}`;
}
