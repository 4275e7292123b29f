import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { piecesOfTaggedText, type Piece } from '../documents/index.js';

// The segment path's record of what each delivery wrote (docs/review.md, "The segment path"): per
// output, in `<state folder>/segments-written/`, the source segments it translated (memory keys and
// tagged text, in document order), which of them hold a person's wording, and the conflicts: a
// reviewed segment whose source changed. ./reviewed-segments.ts reads and writes it per delivery;
// `status` lists its conflicts and `locsync outputs keep|take-new` resolves them (files only: the
// state is not opened for that).

/**
 * A reviewed segment whose source changed: the output keeps the person's wording, the new machine
 * translation is in the file beside it (`*.locsync-new.*`) until a person decides.
 */
export interface SegmentConflict {
  /** Where the segment is, for a person ("line 2", "word/document.xml paragraph 4"). */
  where: string;
  /** Its source text when the person worded it. */
  source_before: string;
  /** The person's wording (what the output holds). */
  reviewed: string;
  /** Its source text now (absent in records of older versions). */
  source?: string;
  /** The new machine translation, in the file beside the output (absent: not known yet, or older records). */
  machine?: string;
}

/** A conflict as recorded: with what a delivery and `outputs keep` need of it. */
export interface HeldConflict extends SegmentConflict {
  /** The memory key of the segment's new source (absent in records of older versions: listed only). */
  key?: string;
  /** Its new source as tagged text (the reviewed row `outputs keep` leaves for the next delivery). */
  tagged_source?: string;
  /** The person's wording as tagged text in the new source's shape: written into the output. */
  held?: string;
}

/**
 * The text of a segment's code pieces (placeholders, markup) by piece index: its tagged text has
 * only `<x id="i"/>` for them, and so has a translation of it. Absent when it has none.
 */
export type Codes = Record<string, string>;

/** A plural form a string file's target adds: where it is and the source segment it takes its text from. */
export interface AddedForm {
  /** Its place in the output ("key photos (few)"). */
  where: string;
  /** The donor's memory key and tagged source text. */
  donor: string;
  source: string;
  /** The donor's code pieces (absent in records of older versions). */
  codes?: Codes;
}

export interface WrittenSegments {
  output: string;
  /** The segment job that wrote the output. */
  job_id: number;
  /** `codes`: absent when the segment has none, and in records of older versions. */
  segments: Array<{ key: string; source: string; where: string; codes?: Codes }>;
  /** Keys of segments whose translation in the output is a person's. */
  reviewed: string[];
  /**
   * The person's wording of reviewed segments as the output had it, placeholders included, by key:
   * what a conflict shows (their tagged text numbers code pieces as the output's value has them,
   * not as the source does). Absent in records of older versions.
   */
  reviewed_texts?: Record<string, string>;
  conflicts: HeldConflict[];
  /**
   * Wordings `locsync outputs keep` kept against their new source: the next delivery puts them in
   * the segment memory as reviewed (the command does not open the state).
   */
  kept?: Array<{ key: string; source: string; translation: string }>;
  /** Added plural forms, with the tagged text written for each (absent in records of older versions). */
  forms?: Array<AddedForm & { written: string }>;
  /** Added plural forms a person worded: the value to write (decoded) and as it reads (tagged). */
  reviewed_forms?: Array<AddedForm & { value: string; tagged: string }>;
}

const folderOf = (stateFolder: string) => path.join(stateFolder, 'segments-written');
const fileOf = (stateFolder: string, output: string) =>
  path.join(folderOf(stateFolder), `${createHash('sha256').update(output).digest('hex').slice(0, 24)}.json`);

export function readRecord(stateFolder: string, output: string): WrittenSegments | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(fileOf(stateFolder, output), 'utf8')) as WrittenSegments;
    return r.output === output ? r : undefined;
  } catch {
    return undefined;
  }
}

export async function writeRecord(stateFolder: string, r: WrittenSegments): Promise<void> {
  await fsp.mkdir(folderOf(stateFolder), { recursive: true });
  const file = fileOf(stateFolder, r.output);
  await fsp.writeFile(`${file}.tmp`, JSON.stringify(r));
  await fsp.rename(`${file}.tmp`, file);
}

/** A conflict as `status` shows it (what only a delivery needs left out). */
const shown = ({ where, source_before, reviewed, source, machine }: HeldConflict): SegmentConflict => ({
  where,
  source_before,
  reviewed,
  ...(source !== undefined ? { source } : {}),
  ...(machine !== undefined ? { machine } : {}),
});

/** The conflicts of every output of the segment path (status and the pages list them). */
export function segmentConflicts(stateFolder: string): Map<string, SegmentConflict[]> {
  const out = new Map<string, SegmentConflict[]>();
  let names: string[];
  try {
    names = fs.readdirSync(folderOf(stateFolder));
  } catch {
    return out;
  }
  for (const n of names.filter((x) => x.endsWith('.json'))) {
    try {
      const r = JSON.parse(fs.readFileSync(path.join(folderOf(stateFolder), n), 'utf8')) as WrittenSegments;
      if (r.conflicts.length) out.set(r.output, r.conflicts.map(shown));
    } catch {
      // A record being replaced: read again by the next status.
    }
  }
  return out;
}

/**
 * `locsync outputs take-new`: the machine translations of the conflicting segments stand (the file
 * beside the output, when there is one, is put in its place by the caller). False: none recorded.
 */
export async function acceptSegmentConflicts(stateFolder: string, output: string): Promise<boolean> {
  const r = readRecord(stateFolder, output);
  if (!r?.conflicts.length) return false;
  await writeRecord(stateFolder, { ...r, conflicts: [] });
  return true;
}

/**
 * `locsync outputs keep`: the person's wording of the conflicting segments stands, reviewed against
 * their new source (the next delivery puts it in the segment memory). False: none recorded.
 */
export async function keepSegmentConflicts(stateFolder: string, output: string): Promise<boolean> {
  const r = readRecord(stateFolder, output);
  if (!r?.conflicts.length) return false;
  const kept = [...(r.kept ?? [])];
  const reviewed = new Set(r.reviewed);
  const texts = { ...r.reviewed_texts };
  for (const c of r.conflicts) {
    if (c.key === undefined || c.held === undefined || c.tagged_source === undefined) continue;
    kept.push({ key: c.key, source: c.tagged_source, translation: c.held });
    reviewed.add(c.key);
    texts[c.key] = c.reviewed;
  }
  await writeRecord(stateFolder, {
    ...r,
    conflicts: [],
    kept,
    reviewed: [...reviewed],
    reviewed_texts: texts,
  });
  return true;
}

/** The code pieces of a segment, for the record (undefined: none). */
export function codesOf(segment: { pieces?: readonly Piece[] }): Codes | undefined {
  const codes: Codes = {};
  segment.pieces?.forEach((p, i) => {
    if (p.code) codes[i] = p.text;
  });
  return Object.keys(codes).length ? codes : undefined;
}

/** A recorded source segment's pieces, code pieces with their text when the record has it. */
export function sourcePieces(s: { source: string; codes?: Codes }): Piece[] | undefined {
  return piecesOfTaggedText(s.source)?.map((p, i) => (p.code ? { text: s.codes?.[i] ?? '', code: true } : p));
}

/** `{ codes }` when there are any: a record's optional field. */
export const withCodes = (codes: Codes | undefined): { codes?: Codes } => (codes ? { codes } : {});
