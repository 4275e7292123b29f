import type { DocumentWording } from '../xliff/wording.js';
import fs from 'node:fs';
import path from 'node:path';
import type { FormatOptions } from '../documents/format-options.js';
import { formatOptionsOf } from '../manifest/sections/csv.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { JobLedger, RunRecord } from '../state/types.js';
import { besidePath } from '../sync/run/edited-output.js';
import { keptDeliveries, keptDirOf, keptRuns, type KeptDelivery } from '../sync/run/replaced-outputs.js';
import { compareVersions, type Comparison, type Provenance } from './compare.js';
import { changedSince, fileAt } from './git.js';
import { outputNowBy, wholly } from './provenance.js';
import { extensionOf } from '../documents/format-registry.js';
import { segmentLinesOfBytes, segmentLinesOfFile, type ReadAs, type SegmentLine } from './segment-lines.js';
import { outputFile } from '../manifest/in-place-output.js';

// What `locsync review` shows, per changed document and language: where "previous" comes from is
// the one difference between its two sources (docs/review.md, "The review page").
//   --since <git ref>: the source and output as that commit holds them (git show), against the
//     files now; a document whose output is the same as in the commit is not shown.
//   --since <run>: what the state folder kept of each run from that one on (../sync/run/
//     replaced-outputs.ts): the output a run replaced and the source it translated; the new
//     translation is what the next run replaced, or the file now. One section per run.

export interface ReviewDocument {
  /** The output, relative to the manifest folder. */
  output: string;
  /** The source, relative to the manifest folder (null: not known). */
  source: string | null;
  language: string;
  /** new: no previous translation; conflict: a person edited the output, the new translation is beside it. */
  state: 'changed' | 'new' | 'conflict';
  /** Where the new translation was read (the output, or the file beside it). */
  new_translation: string;
  /** What the reader should know about this comparison (a side that was not available). */
  notes: string[];
  /** The document could not be read (the comparison is empty). */
  error?: string;
  comparison: Comparison;
  /**
   * Whose wording the output's segments are now, counted, and each segment's XLIFF unit id (the
   * id `locsync xliff export` gives it and its import recognises): set by the command, which has
   * the memory (src/xliff/wording.ts).
   */
  wording?: ReviewWording;
}

/** A document's wording on the review page: its counts and units. */
export type ReviewWording = Pick<DocumentWording, 'counts' | 'units'>;

export interface ReviewSection {
  /** Anchor of the section (`run-12`, `git`). */
  id: string;
  title: string;
  documents: ReviewDocument[];
}

export interface ReviewData {
  pipeline: string;
  generatedAt: string;
  /** What the page compares with, for a person: "git commit 1a2b3c4 (origin/main)", "run #12". */
  since: string;
  sections: ReviewSection[];
}

/** One document and language to compare, each side a file, bytes (from git) or nothing. */
interface Sides {
  output: string;
  source: string | null;
  language: string;
  state: ReviewDocument['state'];
  /** Where the new translation is, for a person. */
  newTranslation: string;
  newOutput: { file: string };
  oldSource: Side;
  oldOutput: Side;
  newSource: Side;
  notes: string[];
  /** Whose the previous and the new translation are, where that is known (./provenance.ts). */
  previousBy?: Provenance | undefined;
  nextBy?: Provenance | undefined;
  /** The mapping's settings of the document's format (a CSV file's columns), if any. */
  read?: FormatOptions | undefined;
}

type Side = { file: string } | { bytes: Buffer; format: string } | null;

async function read(side: Side, as: ReadAs): Promise<SegmentLine[] | null> {
  if (!side) return null;
  if ('file' in side) return segmentLinesOfFile(side.file, extensionOf(side.file), as);
  return segmentLinesOfBytes(side.bytes, side.format, as);
}

async function compare(s: Sides): Promise<ReviewDocument> {
  const doc = {
    output: s.output,
    source: s.source,
    language: s.language,
    state: s.state,
    new_translation: s.newTranslation,
    notes: s.notes,
  };
  // Sources in their own language, outputs in the target's (a CSV file's column, a catalog's entries).
  const formatOptions = s.read ? { formatOptions: s.read } : {};
  const asSource: ReadAs = formatOptions;
  const asOutput: ReadAs = { lang: s.language, ...formatOptions };
  try {
    const [oldSource, oldOutput, newSource, newOutput] = await Promise.all([
      read(s.oldSource, asSource),
      read(s.oldOutput, asOutput),
      read(s.newSource, asSource),
      read(s.newOutput, asOutput),
    ]);
    return {
      ...doc,
      comparison: compareVersions({
        oldSource,
        oldOutput,
        newSource,
        newOutput: newOutput!,
        ...(s.previousBy ? { previousBy: s.previousBy } : {}),
        ...(s.nextBy ? { nextBy: s.nextBy } : {}),
      }),
    };
  } catch (err) {
    return { ...doc, error: (err as Error).message, comparison: { rows: [], unchanged: 0 } };
  }
}

const posix = (p: string) => p.split(path.sep).join('/');

const mappingNamed = (loaded: LoadedManifest, name: string) =>
  loaded.manifest.mappings.find((x) => x.name === name);

/** The source of a job, relative to the manifest folder (null: its mapping is gone from the manifest). */
function sourceOf(loaded: LoadedManifest, mapping: string, relPath: string): string | null {
  const m = mappingNamed(loaded, mapping);
  return m ? posix(path.relative(loaded.dir, path.resolve(loaded.dir, m.source, relPath))) : null;
}

/** How the mapping reads a file of `rel`'s format (a CSV file's columns); none: as it is. */
function readOptionsOf(loaded: LoadedManifest, mapping: string | undefined, rel: string) {
  const m = mapping === undefined ? undefined : mappingNamed(loaded, mapping);
  return m ? formatOptionsOf(m, extensionOf(outputFile(rel))) : undefined;
}

const existing = (base: string, rel: string | null): Side =>
  rel && fs.existsSync(path.resolve(base, rel)) ? { file: path.resolve(base, rel) } : null;

/** `--since <git ref>`: every output that differs from the commit's (or is new), with its source. */
export async function sinceCommit(
  loaded: LoadedManifest,
  ledger: JobLedger,
  commit: { ref: string; sha: string },
): Promise<ReviewSection> {
  const base = loaded.dir;
  const stateFolder = path.dirname(loaded.statePath);
  const changed = await changedSince(base, commit.sha);
  const documents: ReviewDocument[] = [];
  for (const rec of await ledger.writtenRecords()) {
    // An in-place target (`file#de`) is a part of its file: git, the disk and the formats know the file.
    const file = outputFile(rec.output_path);
    const beside = besidePath(rec.output_path);
    const conflict = fs.existsSync(path.resolve(base, beside));
    if (!conflict && !changed.has(file)) continue;
    const job = await ledger.get(rec.id);
    if (!job || !fs.existsSync(path.resolve(base, conflict ? beside : file))) continue;
    const source = sourceOf(loaded, job.mapping, job.rel_path);
    const [oldOutput, oldSource] = await Promise.all([
      fileAt(base, commit.sha, file),
      source ? fileAt(base, commit.sha, source) : undefined,
    ]);
    const notes: string[] = [];
    const outputAbs = path.resolve(base, file);
    if (conflict)
      notes.push(
        `edited by a person: the new translation is beside it (${beside}); resolve with \`locsync outputs keep|take-new ${rec.output_path}\``,
      );
    // In a conflict the commit's version is the person's when the output (theirs) still is it.
    const theirs = conflict && oldOutput && fs.existsSync(outputAbs) ? fs.readFileSync(outputAbs) : undefined;
    const previousBy = theirs && oldOutput?.equals(theirs) ? wholly('person') : undefined;
    const nextBy = conflict
      ? wholly('machine')
      : await outputNowBy(stateFolder, rec.output_path, outputAbs, rec);
    if (oldOutput && !oldSource && source)
      notes.push(`the source is not in ${commit.ref}: its changes are not marked`);
    documents.push(
      await compare({
        output: rec.output_path,
        source,
        language: job.target_lang,
        state: conflict ? 'conflict' : oldOutput ? 'changed' : 'new',
        newTranslation: conflict ? beside : rec.output_path,
        newOutput: { file: path.resolve(base, conflict ? beside : file) },
        oldOutput: oldOutput ? { bytes: oldOutput, format: extensionOf(file) } : null,
        oldSource: oldSource && source ? { bytes: oldSource, format: extensionOf(source) } : null,
        newSource: existing(base, source),
        notes,
        previousBy,
        nextBy,
        read: readOptionsOf(loaded, job.mapping, rec.output_path),
      }),
    );
  }
  documents.sort((a, b) => a.output.localeCompare(b.output));
  return { id: 'git', title: `Since ${commit.ref} (${commit.sha.slice(0, 12)})`, documents };
}

type Kept = KeptDelivery & { dir: string; run: number };

/** The mapping of an output's latest job (the kept deliveries do not name it). */
async function mappingOfOutput(
  ledger: Pick<JobLedger, 'get'>,
  rec: { id: number } | undefined,
): Promise<string | undefined> {
  return rec ? (await ledger.get(rec.id))?.mapping : undefined;
}

/** The title of a run's section, from its record when the state still has it. */
function runTitle(id: number, runs: readonly RunRecord[]): string {
  const r = runs.find((x) => x.id === id);
  return r ? `Run #${id}: ${r.command}, ${r.started_at.slice(0, 19).replace('T', ' ')} UTC` : `Run #${id}`;
}

/** `--since <run>`: one section per run from `first` on, from what each run kept. */
export function keptRunIds(loaded: LoadedManifest, first: number): number[] {
  return keptRuns(keptDirOf(loaded.statePath))
    .filter((id) => id >= first)
    .sort((a, b) => a - b);
}

export async function sinceRun(
  loaded: LoadedManifest,
  first: number,
  runs: readonly RunRecord[],
  ledger: Pick<JobLedger, 'writtenRecords' | 'get'>,
): Promise<ReviewSection[]> {
  const base = loaded.dir;
  const stateFolder = path.dirname(loaded.statePath);
  const records = new Map((await ledger.writtenRecords()).map((r) => [r.output_path, r]));
  const dir = keptDirOf(loaded.statePath);
  // Every kept delivery of every kept run (older runs too: the source an earlier run translated is
  // the source of the translation a later run replaced).
  const all: Kept[] = keptRuns(dir)
    .sort((a, b) => a - b)
    .flatMap((run) => keptDeliveries(dir, run).map((d) => ({ ...d, run })));
  const sections: ReviewSection[] = [];
  for (const run of keptRunIds(loaded, first)) {
    const documents: ReviewDocument[] = [];
    const mine = new Map(all.filter((d) => d.run === run).map((d) => [d.output, d] as const));
    for (const d of mine.values()) {
      const later = all.find((x) => x.output === d.output && x.run > run && x.previous);
      const earlier = all.filter((x) => x.output === d.output && x.run < run && x.source).pop();
      // A language's part of an in-place file is placed in the file itself (outputFile), not beside.
      const file = outputFile(d.output);
      const beside = d.placed !== file;
      const notes: string[] = [];
      // The new translation: what a later run replaced, else where this run put it (still there?).
      let newTranslation = d.placed;
      let newFile = path.resolve(base, d.placed);
      if (later) {
        newTranslation = `${d.output} as run #${later.run} replaced it`;
        newFile = path.join(later.dir, later.previous!);
      } else if (!fs.existsSync(newFile)) {
        newTranslation = d.output;
        newFile = path.resolve(base, file);
      }
      if (!fs.existsSync(newFile)) continue;
      // The new translation beside a person's edit is the machine's; the output now is what its
      // record says; a version a later run replaced is not known.
      const nextBy = later
        ? undefined
        : newTranslation === d.output || newTranslation === file
          ? await outputNowBy(stateFolder, d.output, newFile, records.get(d.output))
          : wholly('machine');
      if (beside && !later)
        notes.push(
          d.placed === newTranslation
            ? `edited by a person: the new translation is beside it (${d.placed}); resolve with \`locsync outputs keep|take-new ${d.output}\``
            : 'edited by a person: the conflict was resolved since',
        );
      const oldOutput: Side = d.previous
        ? { file: path.join(d.dir, d.previous) }
        : beside
          ? existing(base, file)
          : null;
      const newSource: Side = d.source ? { file: path.join(d.dir, d.source) } : existing(base, d.source_path);
      if (oldOutput && !earlier) notes.push('the previous source was not kept: its changes are not marked');
      if (!d.source && later) notes.push('the source translated was not kept: shown as it is now');
      documents.push(
        await compare({
          output: d.output,
          source: d.source_path,
          language: d.target,
          state: beside ? 'conflict' : oldOutput ? 'changed' : 'new',
          newTranslation,
          newOutput: { file: newFile },
          oldOutput,
          oldSource: earlier ? { file: path.join(earlier.dir, earlier.source!) } : null,
          newSource,
          notes,
          // Beside an edit, the previous version is the person's.
          previousBy: beside ? wholly('person') : undefined,
          nextBy,
          read: readOptionsOf(loaded, await mappingOfOutput(ledger, records.get(d.output)), d.output),
        }),
      );
    }
    documents.sort((a, b) => a.output.localeCompare(b.output));
    sections.push({ id: `run-${run}`, title: runTitle(run, runs), documents });
  }
  return sections;
}
