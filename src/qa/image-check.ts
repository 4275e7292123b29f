import fs from 'node:fs/promises';

// Images have no segments (the document layer copies them): the one thing to check is that the file
// is whole. A PNG ends with its IEND chunk, a JPEG with the end-of-image marker; a file cut short
// (a download that stopped, a truncated answer) ends with neither and does not open.

const PNG_END = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
const JPEG_END = Buffer.from([0xff, 0xd9]);

/** Bytes read from the end of an image: JPEGs may carry some padding after their end marker. */
const TAIL = 64;

/** Undefined when the image at `file` ends as its format does; else why it does not. */
export async function imageCutShort(file: string, format: string): Promise<string | undefined> {
  const end = format === 'png' ? PNG_END : format === 'jpg' || format === 'jpeg' ? JPEG_END : undefined;
  if (!end) return undefined;
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(TAIL, size);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    if (format === 'png' ? tail.subarray(length - PNG_END.length).equals(PNG_END) : tail.includes(end))
      return undefined;
    return `the .${format} image is cut short (it does not end as a .${format} does)`;
  } finally {
    await handle.close();
  }
}
