import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  isBilingual,
  isStringDocument,
  openDocument,
  piecesOfTaggedText,
  taggedText,
  wordingInSourceShape,
  type OpenedDocument,
  type Piece,
} from '../documents/index.js';
import type { JobRecord, SegmentMemory, SegmentMemoryRow } from '../state/types.js';
import { outputCondition, writtenOf } from './run/edited-output.js';

// The segment path (method: segments) and outputs edited by people (docs/review.md): the person's
// wording is taken into the segment memory as a *reviewed* translation, preferred to the service's.
//
// Each delivery of the segment path records, per output, the source segments it translated (their
// memory keys and tagged text, in document order) in `<state folder>/segments-written/`. When the
// source changes and the output differs from what was written, the output's segments are read with
// the document layer and matched to those recorded by position (the document layer's ids); each
// segment whose text is not what was written is remembered as reviewed under the old source
// segment's key. The new output is then written over the edit: unchanged segments keep the reviewed
// wording (the memory prefers it), changed ones are translated. A reviewed segment whose source
// changed gets the new machine translation and is listed as a conflict (status, exit 1) until
// `locsync outputs take-new <output>` accepts it or a person edits it again.
//
// A string file's target may have plural forms its source has not (Polish `few` of an English
// `one, other`): each takes the translation of a source segment (its donor), so it has no memory key
// of its own. Such a form is matched by its place ("key photos (few)"); a person's wording of it is
// kept in this record with its donor and written again while the donor's source stays the same (a
// changed donor: the new machine translation, listed as a conflict).
//
// An edit that cannot be matched (another number of segments, an output that does not open) keeps
// the document path's rule: the output is left alone and the new translation is written beside it.

/** A reviewed segment whose source changed: the new machine translation was used instead. */
export interface SegmentConflict {
  /** Where the segment was, for a person ("line 2", "word/document.xml paragraph 4"). */
  where: string;
  /** Its source text before the change. */
  source_before: string;
  /** The person's wording, which no longer applies. */
  reviewed: string;
}

/**
 * The text of a segment's code pieces (placeholders, markup) by piece index: its tagged text has
 * only `<x id="i"/>` for them, and so has a translation of it. Absent when it has none.
 */
type Codes = Record<string, string>;

/** A plural form a string file's target adds: where it is and the source segment it takes its text from. */
interface AddedForm {
  /** Its place in the output ("key photos (few)"). */
  where: string;
  /** The donor's memory key and tagged source text. */
  donor: string;
  source: string;
  /** The donor's code pieces (absent in records of older versions). */
  codes?: Codes;
}

interface WrittenSegments {
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
  conflicts: SegmentConflict[];
  /** Added plural forms, with the tagged text written for each (absent in records of older versions). */
  forms?: Array<AddedForm & { written: string }>;
  /** Added plural forms a person worded: the value to write (decoded) and as it reads (tagged). */
  reviewed_forms?: Array<AddedForm & { value: string; tagged: string }>;
}

const folderOf = (stateFolder: string) => path.join(stateFolder, 'segments-written');
const fileOf = (stateFolder: string, output: string) =>
  path.join(folderOf(stateFolder), `${createHash('sha256').update(output).digest('hex').slice(0, 24)}.json`);

function readRecord(stateFolder: string, output: string): WrittenSegments | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(fileOf(stateFolder, output), 'utf8')) as WrittenSegments;
    return r.output === output ? r : undefined;
  } catch {
    return undefined;
  }
}

async function writeRecord(stateFolder: string, r: WrittenSegments): Promise<void> {
  await fsp.mkdir(folderOf(stateFolder), { recursive: true });
  const file = fileOf(stateFolder, r.output);
  await fsp.writeFile(`${file}.tmp`, JSON.stringify(r));
  await fsp.rename(`${file}.tmp`, file);
}

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
      if (r.conflicts.length) out.set(r.output, r.conflicts);
    } catch {
      // A record being replaced: read again by the next status.
    }
  }
  return out;
}

/** `locsync outputs take-new`: the machine translations of the conflicting segments stand. */
export async function acceptSegmentConflicts(stateFolder: string, output: string): Promise<boolean> {
  const r = readRecord(stateFolder, output);
  if (!r?.conflicts.length) return false;
  await writeRecord(stateFolder, { ...r, conflicts: [] });
  return true;
}

/** A source segment of the new delivery: its memory key, tagged text and place. */
export interface SourceSegment {
  key: string;
  tagged: string;
  segment: { id: number; where: string; pieces?: readonly Piece[] };
}

/** The code pieces of a segment, for the record (undefined: none). */
function codesOf(segment: SourceSegment['segment']): Codes | undefined {
  const codes: Codes = {};
  segment.pieces?.forEach((p, i) => {
    if (p.code) codes[i] = p.text;
  });
  return Object.keys(codes).length ? codes : undefined;
}

/** A recorded source segment's pieces, code pieces with their text when the record has it. */
function sourcePieces(s: { source: string; codes?: Codes }): Piece[] | undefined {
  return piecesOfTaggedText(s.source)?.map((p, i) => (p.code ? { text: s.codes?.[i] ?? '', code: true } : p));
}

/** `{ codes }` when there are any: a record's optional field. */
const withCodes = (codes: Codes | undefined): { codes?: Codes } => (codes ? { codes } : {});

export interface ReviewedTake {
  /**
   * The output as it was when its edit was taken (the rename compares with it): set when the edit is
   * in the memory and the output may be written over; undefined: the document path's rule applies.
   */
  takenAs: Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'> | undefined;
  /** A person's wording of added plural forms, by form key: for the writer (StringWriteOptions.forms). */
  forms: ReadonlyMap<string, string>;
  /** After the delivery is recorded done: what it wrote, for the next delivery. */
  delivered(jobId: number): Promise<void>;
}

export interface TakeReviewed {
  stateFolder: string;
  outputAbs: string;
  outputRel: string;
  format: string;
  /** The new source document and the target language (a string file's added plural forms). */
  doc: OpenedDocument;
  targetLang: string;
  /** The output's latest done job (its record of what it wrote). */
  previous: JobRecord | undefined;
  overwriteEdits: boolean;
  memory: SegmentMemory;
  /** The new source's segments, in order. */
  segments: readonly SourceSegment[];
  /** A memory row for a (key, tagged source, translation) of this job's languages and settings. */
  row: (key: string, source: string, translation: string) => SegmentMemoryRow;
}

/** The plural forms the target adds to a string file, by form key, with their donors. */
function addedForms(t: TakeReviewed): Map<string, AddedForm> {
  if (!isStringDocument(t.doc)) return new Map();
  const byId = new Map(t.segments.map((s) => [s.segment.id, s]));
  const out = new Map<string, AddedForm>();
  for (const f of t.doc.addedForms(t.targetLang)) {
    const donor = byId.get(f.donor.id);
    if (donor)
      out.set(f.key, {
        where: f.where,
        donor: donor.key,
        source: donor.tagged,
        ...withCodes(codesOf(donor.segment)),
      });
  }
  return out;
}

/** Takes a person's edit into the memory (when there is one to take) and lists the conflicts. */
export async function takeReviewed(t: TakeReviewed): Promise<ReviewedTake> {
  const before = readRecord(t.stateFolder, t.outputRel);
  const record = before && t.previous && before.job_id === t.previous.id ? before : undefined;
  const reviewed = new Set(record?.reviewed ?? []);
  const reviewedTexts = new Map(Object.entries(record?.reviewed_texts ?? {}));
  const formsBefore = new Map((record?.forms ?? []).map((f) => [f.where, f]));
  const reviewedForms = new Map(
    (t.overwriteEdits ? [] : (record?.reviewed_forms ?? [])).map((f) => [f.where, f]),
  );
  let takenAs: ReviewedTake['takenAs'];
  if (record && !t.overwriteEdits && (await outputCondition(t.outputAbs, t.previous)) === 'edited') {
    // Read as what it is: a .pot source gives a .po output, whose msgstr lines are the translations.
    const edited = await editedSegments(t.outputAbs, t.doc.outputFormats[0] ?? t.format);
    // Added plural forms are matched by place, every other segment by position.
    const matched = edited?.filter((s) => !formsBefore.has(s.where));
    const current =
      edited && matched?.length === record.segments.length
        ? await t.memory.lookup(record.segments.map((s) => s.key))
        : undefined;
    const strings = isStringDocument(t.doc);
    // Each wording in its source's pieces (undefined: it has no place in them, ../documents:
    // wordingInSourceShape).
    const wordings = record.segments.map((s, i) => {
      const pieces = sourcePieces(s);
      const output = matched?.[i];
      if (!output || !current) return undefined;
      // A string value's pieces are its placeholders (protectPlaceholders), whatever file it is in.
      return pieces && strings
        ? wordingInSourceShape(output, pieces, current.get(s.key), t.targetLang)
        : output.tagged;
    });
    if (edited && matched && current && wordings.every((w) => w !== undefined)) {
      const written = await writtenOf(t.outputAbs);
      const rows: SegmentMemoryRow[] = [];
      record.segments.forEach((s, i) => {
        const wording = wordings[i]!;
        if (wording === current.get(s.key)) return;
        rows.push(t.row(s.key, s.source, wording));
        reviewed.add(s.key);
        reviewedTexts.set(s.key, matched[i]!.value);
      });
      await t.memory.put(rows);
      for (const s of edited) {
        const form = formsBefore.get(s.where);
        if (form && s.tagged !== form.written)
          reviewedForms.set(s.where, {
            where: form.where,
            donor: form.donor,
            source: form.source,
            ...withCodes(form.codes),
            value: s.value,
            tagged: s.tagged,
          });
      }
      takenAs = {
        output_sha256: written.sha256,
        output_size: written.size,
        output_mtime_ms: written.mtimeMs,
      };
    }
  }
  // Reviewed segments whose source is gone from the new source: their wording no longer applies.
  const now = new Set(t.segments.map((s) => s.key));
  const lost = (record?.segments ?? []).filter((s) => reviewed.has(s.key) && !now.has(s.key));
  const wording = await t.memory.lookup(lost.map((s) => s.key));
  // A worded plural form stays while its donor's source does; otherwise it no longer applies either.
  const forms = addedForms(t);
  const formWording = new Map<string, string>();
  const keptForms: Array<AddedForm & { value: string; tagged: string }> = [];
  const lostForms: SegmentConflict[] = [];
  const formAt = new Map([...forms].map(([key, f]) => [f.where, { key, ...f }]));
  for (const r of reviewedForms.values()) {
    const form = formAt.get(r.where);
    if (form && form.donor === r.donor) {
      formWording.set(form.key, r.value);
      keptForms.push(r);
    } else
      lostForms.push({
        where: r.where,
        source_before: plainOf(r.source, r.codes),
        reviewed: r.value,
      });
  }
  const conflicts = [
    ...(before?.conflicts ?? []),
    ...lost.map((s) => ({
      where: s.where,
      source_before: plainOf(s.source, s.codes),
      reviewed: reviewedTexts.get(s.key) ?? plainOf(wording.get(s.key) ?? ''),
    })),
    ...lostForms,
  ];
  return {
    takenAs,
    forms: formWording,
    delivered: async (jobId) => {
      const translations = await t.memory.lookup([...forms.values()].map((f) => f.donor));
      const worded = new Map(keptForms.map((r) => [r.where, r.tagged]));
      await writeRecord(t.stateFolder, {
        output: t.outputRel,
        job_id: jobId,
        segments: t.segments.map((s) => ({
          key: s.key,
          source: s.tagged,
          where: s.segment.where,
          ...withCodes(codesOf(s.segment)),
        })),
        reviewed: [...reviewed].filter((k) => now.has(k)),
        reviewed_texts: Object.fromEntries([...reviewedTexts].filter(([k]) => reviewed.has(k) && now.has(k))),
        conflicts,
        forms: [...forms.values()].map((f) => ({
          ...f,
          written: worded.get(f.where) ?? translations.get(f.donor) ?? '',
        })),
        reviewed_forms: keptForms,
      });
    },
  };
}

/**
 * Each segment of an output: its place, its tagged text and its value as written (pieces joined;
 * a string file's value); undefined: it does not open.
 */
async function editedSegments(
  outputAbs: string,
  format: string,
): Promise<Array<{ where: string; tagged: string; value: string }> | undefined> {
  try {
    const doc = await openDocument(outputAbs, {
      format,
      ...(isBilingual(format) ? { side: 'target' as const } : {}),
    });
    const out: Array<{ where: string; tagged: string; value: string }> = [];
    for await (const s of doc.segments())
      out.push({ where: s.where, tagged: taggedText(s), value: s.pieces.map((p) => p.text).join('') });
    return out;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&apos;': "'",
  '&amp;': '&',
};

/**
 * A tagged text as a person reads it: each code piece as the source has it (`%d`, `{name}`, `<b>`),
 * the other inline tags left out, escapes read.
 */
const plainOf = (tagged: string, codes: Codes = {}): string =>
  tagged.replace(/<x id="(\d+)"\s*\/>|<[^>]*>|&(?:lt|gt|quot|apos|amp);/g, (m, id?: string) =>
    id !== undefined ? (codes[id] ?? '') : m.startsWith('&') ? (ENTITIES[m] ?? m) : '',
  );

/**
 * The places of an output's segments whose wording is a person's, as the record of its delivery by
 * job `jobId` has them (reviewed segments and worded plural forms); undefined: no such record.
 */
export function reviewedPlaces(stateFolder: string, output: string, jobId: number): Set<string> | undefined {
  const r = readRecord(stateFolder, output);
  if (r?.job_id !== jobId) return undefined;
  const reviewed = new Set(r.reviewed);
  return new Set([
    ...r.segments.filter((s) => reviewed.has(s.key)).map((s) => s.where),
    ...(r.reviewed_forms ?? []).map((f) => f.where),
  ]);
}
