import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isBilingual, openDocument, segmentText } from '../documents/index.js';

// The segments of one document as the review page compares them: text and where it is. A
// translated XLIFF is read by its targets (the translation it carries), its source by its sources.

export interface SegmentLine {
  text: string;
  where: string;
}

/** The lower-case format of a file name (its extension). */
export const formatOf = (name: string): string => path.extname(name).slice(1).toLowerCase();

/** Segments of a file; `translation`: it is an output (XLIFF read by its targets). */
export async function readSegments(
  file: string,
  format: string,
  translation: boolean,
): Promise<SegmentLine[]> {
  const doc = await openDocument(file, {
    format,
    ...(translation && isBilingual(format) ? { side: 'target' as const } : {}),
  });
  const lines: SegmentLine[] = [];
  for await (const s of doc.segments()) lines.push({ text: segmentText(s), where: s.where });
  return lines;
}

/** Segments of bytes that are not a file here (a version read from git), through a temporary file. */
export async function readSegmentsOf(
  bytes: Buffer,
  format: string,
  translation: boolean,
): Promise<SegmentLine[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-review-'));
  try {
    const file = path.join(dir, `document.${format || 'txt'}`);
    fs.writeFileSync(file, bytes);
    return await readSegments(file, format, translation);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
