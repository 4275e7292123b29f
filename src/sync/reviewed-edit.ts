import { openDocument, taggedText, wordingInSourceShape, type FormatOptions } from '../documents/index.js';
import type { JobRecord, SegmentMemory, SegmentMemoryRow } from '../state/types.js';
import { writtenOf } from './run/edited-output.js';
import {
  sourcePieces,
  withCodes,
  type AddedForm,
  type HeldConflict,
  type WrittenSegments,
} from './segments-written.js';

// A person's edit of a segment-path output taken in (./reviewed-segments.ts, docs/review.md): the
// output read with the document layer and matched to the record of its delivery, by position (added
// plural forms by place); each segment whose wording is not what was written becomes a reviewed
// memory row. An output that does not open, has another number of segments, or holds a wording
// with no place in its source's pieces is not taken (the caller keeps the document path's rule).

/** The output whose edit is read, and what its reading needs. */
export interface EditedOutput {
  outputAbs: string;
  /** Its format as read (a .pot source gives a .po output, whose msgstr lines are the translations). */
  format: string;
  /** A string file: a value's pieces are its placeholders (protectPlaceholders), whatever file it is in. */
  strings: boolean;
  targetLang: string;
  /** How the document is read (a CSV file's columns): its output is read the same way. */
  read?: FormatOptions | undefined;
  memory: SegmentMemory;
  row: (key: string, source: string, translation: string) => SegmentMemoryRow;
}

/** What the delivery knows of a person's work before the edit is read; taking the edit adds to it. */
export interface ReviewedSoFar {
  /** Reviewed rows for the segment memory. */
  rows: SegmentMemoryRow[];
  /** Conflicts still open, by the memory key of their segment's source. */
  open: Map<string, HeldConflict>;
  /** Keys of segments whose wording is a person's, and that wording as the output had it. */
  reviewed: Set<string>;
  reviewedTexts: Map<string, string>;
  /** Added plural forms a person worded, by place. */
  reviewedForms: Map<string, AddedForm & { value: string; tagged: string }>;
}

/**
 * Reads the edited output against `record` and adds what a person changed to `so`; answers the
 * output as it was read (what its rename compares with), or undefined when the edit cannot be taken.
 */
export async function takeEdit(
  o: EditedOutput,
  record: WrittenSegments,
  formsBefore: ReadonlyMap<string, AddedForm & { written: string }>,
  so: ReviewedSoFar,
): Promise<Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'> | undefined> {
  const edited = await editedSegments(o.outputAbs, o.format, o.targetLang, o.read);
  // Added plural forms are matched by place, every other segment by position.
  const matched = edited?.filter((s) => !formsBefore.has(s.where));
  const current =
    edited && matched?.length === record.segments.length
      ? await o.memory.lookup(record.segments.map((s) => s.key))
      : undefined;
  for (const r of so.rows) current?.set(r.key, r.translation);
  // What the previous delivery wrote of each segment: an open conflict's wording, else the memory's.
  const wrote = (key: string) => so.open.get(key)?.held ?? current?.get(key);
  // Each wording in its source's pieces (undefined: it has no place in them, ../documents:
  // wordingInSourceShape).
  const wordings = record.segments.map((s, i) => {
    const pieces = sourcePieces(s);
    const output = matched?.[i];
    if (!output || !current) return undefined;
    return pieces && o.strings
      ? wordingInSourceShape(output, pieces, wrote(s.key), o.targetLang)
      : output.tagged;
  });
  if (edited && matched && current && wordings.every((w) => w !== undefined)) {
    const written = await writtenOf(o.outputAbs);
    record.segments.forEach((s, i) => {
      const wording = wordings[i]!;
      if (wording === wrote(s.key)) return;
      // Edited again where a conflict was open: the person decided (their new wording stands).
      so.open.delete(s.key);
      so.rows.push(o.row(s.key, s.source, wording));
      so.reviewed.add(s.key);
      so.reviewedTexts.set(s.key, matched[i]!.value);
    });
    for (const s of edited) {
      const form = formsBefore.get(s.where);
      if (form && s.tagged !== form.written)
        so.reviewedForms.set(s.where, {
          where: form.where,
          donor: form.donor,
          source: form.source,
          ...withCodes(form.codes),
          value: s.value,
          tagged: s.tagged,
        });
    }
    return { output_sha256: written.sha256, output_size: written.size, output_mtime_ms: written.mtimeMs };
  }
  return undefined;
}

/**
 * Each segment of an output in `lang`: its place, its tagged text and its value as written (pieces
 * joined; a string file's value); undefined: it does not open. A file of several languages (a
 * String Catalog, a CSV file's columns) is read in that language; a bilingual file (XLIFF) on its
 * target side; every other format ignores both.
 */
async function editedSegments(
  outputAbs: string,
  format: string,
  lang: string,
  read: FormatOptions | undefined,
): Promise<Array<{ where: string; tagged: string; value: string }> | undefined> {
  try {
    const doc = await openDocument(outputAbs, {
      format,
      side: 'target',
      lang,
      ...(read ? { formatOptions: read } : {}),
    });
    const out: Array<{ where: string; tagged: string; value: string }> = [];
    for await (const s of doc.segments())
      out.push({ where: s.where, tagged: taggedText(s), value: s.pieces.map((p) => p.text).join('') });
    return out;
  } catch {
    return undefined;
  }
}
