import { isStringDocument, type FormatOptions, type OpenedDocument, type Piece } from '../documents/index.js';
import type { JobRecord, SegmentMemory, SegmentMemoryRow } from '../state/types.js';
import { commonPairs } from '../util/common-pairs.js';
import { takeEdit } from './reviewed-edit.js';
import { outputCondition } from './run/edited-output.js';
import {
  codesOf,
  readRecord,
  withCodes,
  writeRecord,
  type AddedForm,
  type Codes,
  type HeldConflict,
  type SegmentConflict,
  type WrittenSegments,
} from './segments-written.js';

export type { SegmentConflict } from './segments-written.js';
export { segmentConflicts } from './segments-written.js';

// The segment path (method: segments) and outputs edited by people (docs/review.md): the person's
// wording is taken into the segment memory as a *reviewed* translation, preferred to the service's,
// and is never replaced without a person deciding.
//
// Each delivery of the segment path records, per output, the source segments it translated
// (./segments-written.ts). When the source changes and the output differs from what was written,
// the output's segments are read with the document layer and matched to those recorded by position
// (the document layer's ids, ./reviewed-edit.ts); each segment whose text is not what was written is remembered as
// reviewed under the old source segment's key. The new output is then written over the edit:
// unchanged segments keep the reviewed wording (the memory prefers it), changed ones are translated.
//
// A reviewed segment whose source changed (in this run's edit or one an earlier delivery took in) is
// a conflict: it is paired with the segment its source became (./util/common-pairs.ts over the memory
// keys), the output keeps the person's wording there, the new machine translation goes into the file
// beside it (`*.locsync-new.*`), and both are listed until `locsync outputs keep` (the wording stands,
// reviewed against the new source) or `take-new` (the machine's) decides, or the person edits that
// segment of the output again. A reviewed segment whose source was removed has nothing to replace it.
//
// A string file's target may have plural forms its source has not (Polish `few` of an English
// `one, other`): each takes the translation of a source segment (its donor), so it has no memory key
// of its own. Such a form is matched by its place ("key photos (few)"); a person's wording of it is
// kept in this record with its donor and written again while the donor's source stays the same (a
// changed donor: the new machine translation, listed as a conflict).
//
// An edit that cannot be matched (another number of segments, an output that does not open), or a
// wording whose inline codes do not fit its new source, keeps the document path's rule: the output is
// left alone and the new translation is written beside it.

/** A source segment of the new delivery: its memory key, tagged text and place. */
export interface SourceSegment {
  key: string;
  tagged: string;
  segment: { id: number; where: string; pieces?: readonly Piece[] };
}

export interface ReviewedTake {
  /**
   * The output as it was when its edit was taken (the rename compares with it): set when the edit is
   * in the memory and the output may be written over; undefined: no edit was taken.
   */
  takenAs: Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'> | undefined;
  /**
   * The document path's rule: the output is left alone and the new translation written beside it
   * (an edit that cannot be matched, or a wording that does not fit its new source).
   */
  beside: boolean;
  /**
   * The person's wording of segments whose source changed, by the new segment's memory key (tagged
   * text): written into the output instead of the memory's translation, which goes beside it.
   */
  held: ReadonlyMap<string, string>;
  /** The conflicts of this delivery (their machine translation is known once it is bought). */
  conflicts: readonly SegmentConflict[];
  /** A person's wording of added plural forms, by form key: for the writer (StringWriteOptions.forms). */
  forms: ReadonlyMap<string, string>;
}

/** A take, with the memory rows it puts and what it records once delivered. */
export interface ReviewedAssessment extends ReviewedTake {
  /** Reviewed rows for the segment memory: the edits taken, the wordings `outputs keep` kept. */
  rows: SegmentMemoryRow[];
  /** The record of this delivery; `machine`: the memory's translations by key (tagged). */
  record(jobId: number, machine: ReadonlyMap<string, string>): WrittenSegments;
}

export interface TakeReviewed {
  stateFolder: string;
  outputAbs: string;
  outputRel: string;
  format: string;
  /** How the document is read (a CSV file's columns): its output is read the same way. */
  read?: FormatOptions | undefined;
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
export async function takeReviewed(
  t: TakeReviewed,
): Promise<ReviewedTake & { delivered(jobId: number, machine: ReadonlyMap<string, string>): Promise<void> }> {
  const a = await assessReviewed(t);
  await t.memory.put(a.rows);
  return { ...a, delivered: (jobId, machine) => writeRecord(t.stateFolder, a.record(jobId, machine)) };
}

/**
 * What a delivery does with a person's work, without doing it (`plan` says so; takeReviewed does
 * it): reads the record of the previous delivery, the output and the memory, writes nothing.
 */
export async function assessReviewed(t: TakeReviewed): Promise<ReviewedAssessment> {
  const before = readRecord(t.stateFolder, t.outputRel);
  const record = before && t.previous && before.job_id === t.previous.id ? before : undefined;
  const keep = !t.overwriteEdits;
  const reviewed = new Set(record?.reviewed ?? []);
  const reviewedTexts = new Map(Object.entries(record?.reviewed_texts ?? {}));
  const rows: SegmentMemoryRow[] = [];
  for (const k of keep ? (record?.kept ?? []) : []) rows.push(t.row(k.key, k.source, k.translation));
  // Conflicts still open: their wording is in the output, the machine's beside it.
  const open = new Map<string, HeldConflict>();
  for (const c of keep ? (record?.conflicts ?? []) : [])
    if (c.key !== undefined && c.held !== undefined) open.set(c.key, c);
  const formsBefore = new Map((record?.forms ?? []).map((f) => [f.where, f]));
  const reviewedForms = new Map((keep ? (record?.reviewed_forms ?? []) : []).map((f) => [f.where, f]));
  const condition = keep ? await outputCondition(t.outputAbs, t.previous) : 'unrecorded';
  const takenAs =
    record && condition === 'edited'
      ? await takeEdit(
          {
            outputAbs: t.outputAbs,
            format: t.doc.outputFormats[0] ?? t.format,
            strings: isStringDocument(t.doc),
            targetLang: t.targetLang,
            read: t.read,
            memory: t.memory,
            row: t.row,
          },
          record,
          formsBefore,
          { rows, open, reviewed, reviewedTexts, reviewedForms },
        )
      : undefined;
  // An edit not taken in (no record of what was written, or none that matches) is left alone.
  let beside = condition === 'edited' && !takenAs;
  const now = new Map(t.segments.map((s, i) => [s.key, i]));
  const held = new Map<string, string>();
  const conflicts: HeldConflict[] = [];
  // Open conflicts whose source stayed: still open, at the segment's place now.
  for (const [key, c] of open) {
    const j = now.get(key);
    if (j === undefined) continue;
    held.set(key, c.held!);
    conflicts.push({ ...c, where: t.segments[j]!.segment.where });
  }
  // A person's wording (reviewed, or in an open conflict) whose source changed: paired with what its
  // source became; the wording stays in the output, the machine's goes beside it.
  const old = record?.segments ?? [];
  const lost = old.flatMap((s, i) =>
    (reviewed.has(s.key) || open.has(s.key)) && !now.has(s.key) ? [i] : [],
  );
  const partner = lost.length ? partners(old, t.segments) : new Map<number, number>();
  const wording = await t.memory.lookup(lost.map((i) => old[i]!.key));
  for (const r of rows) wording.set(r.key, r.translation);
  for (const i of lost) {
    const s = old[i]!;
    const j = partner.get(i);
    const next = j === undefined ? undefined : t.segments[j];
    // Its source was removed, or became a segment a person worded too: nothing replaces it.
    if (!next || held.has(next.key) || reviewed.has(next.key)) continue;
    const c = open.get(s.key);
    const words = c?.held ?? wording.get(s.key);
    if (words === undefined) continue;
    // A wording whose inline codes do not fit the new source cannot be written into it.
    if (tagsOf(words) !== tagsOf(next.tagged)) beside = true;
    held.set(next.key, words);
    conflicts.push({
      where: next.segment.where,
      source_before: c?.source_before ?? plainOf(s.source, s.codes),
      reviewed: c?.reviewed ?? reviewedTexts.get(s.key) ?? plainOf(words, s.codes),
      source: plainOf(next.tagged, codesOf(next.segment)),
      key: next.key,
      tagged_source: next.tagged,
      held: words,
    });
  }
  // A worded plural form stays while its donor's source does; otherwise it no longer applies either.
  const forms = addedForms(t);
  const formWording = new Map<string, string>();
  const keptForms: Array<AddedForm & { value: string; tagged: string }> = [];
  const lostForms: HeldConflict[] = [];
  const formAt = new Map([...forms].map(([key, f]) => [f.where, { key, ...f }]));
  for (const r of reviewedForms.values()) {
    const form = formAt.get(r.where);
    if (form && form.donor === r.donor) {
      formWording.set(form.key, r.value);
      keptForms.push(r);
    } else lostForms.push({ where: r.where, source_before: plainOf(r.source, r.codes), reviewed: r.value });
  }
  // Conflicts of records of older versions (no key): listed until accepted.
  const listed = keep ? (before?.conflicts ?? []).filter((c) => c.key === undefined) : [];
  const shownConflicts = [...listed, ...conflicts, ...lostForms];
  return {
    takenAs,
    beside,
    held: beside ? new Map() : held,
    conflicts: shownConflicts,
    forms: formWording,
    rows,
    record: (jobId, machine) => {
      const worded = new Map(keptForms.map((r) => [r.where, r.tagged]));
      return {
        output: t.outputRel,
        job_id: jobId,
        segments: recordedSegments(t.segments),
        reviewed: [...reviewed].filter((k) => now.has(k) && !held.has(k)),
        reviewed_texts: Object.fromEntries([...reviewedTexts].filter(([k]) => reviewed.has(k) && now.has(k))),
        conflicts: shownConflicts.map((c) => {
          const m = c.key === undefined ? undefined : machine.get(c.key);
          const seg = c.key === undefined ? undefined : t.segments[now.get(c.key) ?? -1];
          return m === undefined || !seg ? c : { ...c, machine: plainOf(m, codesOf(seg.segment)) };
        }),
        forms: [...forms.values()].map((f) => ({
          ...f,
          written: worded.get(f.where) ?? machine.get(f.donor) ?? '',
        })),
        reviewed_forms: keptForms,
      };
    },
  };
}

/** Source segments as the record keeps them. */
const recordedSegments = (segments: readonly SourceSegment[]): WrittenSegments['segments'] =>
  segments.map((s) => ({
    key: s.key,
    source: s.tagged,
    where: s.segment.where,
    ...withCodes(codesOf(s.segment)),
  }));

/**
 * `state adopt`: an output adopted for its job, recorded as written from these source segments, none
 * taken in yet. The output's record says locsync did not write it, so the next delivery reads each of
 * its segments as a person's wording (reviewed where its source stayed, a conflict where it changed).
 */
export async function recordAdopted(
  stateFolder: string,
  output: string,
  jobId: number,
  segments: readonly SourceSegment[],
): Promise<void> {
  await writeRecord(stateFolder, {
    output,
    job_id: jobId,
    segments: recordedSegments(segments),
    reviewed: [],
    conflicts: [],
  });
}

/** Old segment index → the new segment it became: between two unchanged segments, paired in order. */
function partners(
  old: ReadonlyArray<{ key: string }>,
  now: ReadonlyArray<{ key: string }>,
): Map<number, number> {
  const out = new Map<number, number>();
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...commonPairs(old, now, (a, b) => a.key === b.key), [old.length, now.length]]) {
    while (i < pi! && j < pj!) out.set(i++, j++);
    i = pi! + 1;
    j = pj! + 1;
  }
  return out;
}

/** A tagged text's inline tags in order: two texts of one shape can take each other's place. */
const tagsOf = (tagged: string): string => (tagged.match(/<[^>]*>/g) ?? []).join('');

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
