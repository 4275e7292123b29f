import fs from 'node:fs/promises';
import { CONTENT_KINDS } from '../documents/content-kinds.js';
import { formatOf } from '../documents/format-registry.js';

// Images have no segments (the document layer copies them): the one thing to check is that the file
// is whole. A PNG ends with its IEND chunk, a JPEG with the end-of-image marker (content-kinds.ts);
// a file cut short (a download that stopped, a truncated answer) ends with neither and does not open.

/** Undefined when the image at `file` ends as its format does; else why it does not. */
export async function imageCutShort(file: string, format: string): Promise<string | undefined> {
  const kind = formatOf(format)?.signature?.kind;
  const end = kind ? CONTENT_KINDS[kind].end : undefined;
  if (!end) return undefined;
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(end.inLast, size);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    if (tail.includes(Buffer.from(end.bytes))) return undefined;
    return `the .${format} image is cut short (it does not end as a .${format} does)`;
  } finally {
    await handle.close();
  }
}
