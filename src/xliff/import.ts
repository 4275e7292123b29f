import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { QaResult } from '../qa/checks.js';
import { OutputGate, QaFailedError, type CheckedJob } from '../qa/gate.js';
import { quarantineDirOf } from '../qa/quarantine.js';
import { inlineOfTagged, taggedSource, taggedTarget, type InlineItem } from '../memory/inline.js';
import type { BroughtRow, TranslationMemory } from '../state/memory-types.js';
import type { RunState } from '../sync/engine.js';
import { noteImportedWording, type ImportedWording } from '../sync/imported-wording.js';
import { OutputIndex } from '../sync/plan/output-index.js';
import { anySettingsKey } from '../sync/segments/memory-key.js';
import { targetDigest } from './digest.js';
import { writeIntoOutput } from './into-output.js';
import { readXliffUnits, type XliffUnit } from './reader.js';
import { inlineTag, type XliffVersion } from './writer.js';
import { roundTripDocuments, type RoundTripDocument, type RoundTripUnit } from './units.js';

// `locsync xliff import <file>…` (docs/xliff.md): a translator's changed targets stored in the
// segment memory as reviewed wording (a person's: the same rules as an edit reviewed). A unit is
// matched to the current source by its id; one whose source changed since the export is refused
// by name, as is one whose inline tags were dropped; the rest of the file is still taken.

export interface Refused {
  file: string;
  unit: string;
  why: string;
}

export interface XliffImportSummary {
  taken: Array<{ file: string; unit: string; document: string }>;
  refused: Refused[];
  /** Units whose target is what the output already has (or that have none). */
  unchanged: number;
  importId: number | undefined;
  /** The outputs the next sync writes again with the wording taken (from the memory). */
  outputs: string[];
  /**
   * Document-path outputs the wording taken was written into now (into-output.ts), each passed by
   * the output checks; the units of one they refuse are in `refused`.
   */
  written: string[];
}

const plain = (items: readonly InlineItem[]) =>
  items
    .filter((i): i is { t: 'text'; text: string } => i.t === 'text')
    .map((i) => i.text)
    .join('');

/** The inline tags of a source the target lacks, in words; undefined when none is missing. */
function missingTags(
  source: readonly InlineItem[],
  target: readonly InlineItem[],
  version: XliffVersion,
): string | undefined {
  const tags = (items: readonly InlineItem[], kind: 'open' | 'code') =>
    items.filter((i) => i.t === kind).map((i) => (i as { id: string }).id);
  const missing: string[] = [];
  for (const kind of ['open', 'code'] as const) {
    const have = tags(target, kind);
    for (const id of tags(source, kind)) {
      const at = have.indexOf(id);
      if (at >= 0) have.splice(at, 1);
      else missing.push(inlineTag(kind, id, version));
    }
  }
  return missing.length > 0 ? missing.join(', ') : undefined;
}

interface Found {
  doc: RoundTripDocument;
  unit: RoundTripUnit;
}

function judge(u: XliffUnit, file: string, byId: Map<string, Found>, docs: RoundTripDocument[]) {
  const found = byId.get(u.id);
  if (!found) {
    const doc = docs.find((d) => d.source === u.file && d.targetLang === u.targetLang.toLowerCase());
    const index = Number(/#(\d+)$/.exec(u.resname)?.[1]);
    const now = doc?.units[Number.isInteger(index) ? index - 1 : -1]?.source;
    return {
      refused: {
        file,
        unit: u.id,
        why: `the source of ${u.file} changed since the export: then "${plain(u.source)}", now ${now === undefined ? 'gone' : `"${plain(inlineOfTagged(now))}"`}`,
      },
    };
  }
  if (!u.target || plain(u.target).trim() === '') return { unchanged: true };
  const sourceItems = inlineOfTagged(found.unit.source);
  const missing = missingTags(sourceItems, u.target, u.version);
  if (missing)
    return { refused: { file, unit: u.id, why: `inline tags missing from the target: ${missing}` } };
  const translation = taggedTarget(taggedSource(sourceItems), u.target);
  if (translation === found.unit.target) return { unchanged: true };
  // The output is gone (or no longer pairs with its source): the target the export wrote tells
  // whether the translator changed it (the service's wording is no person's).
  if (found.unit.target === undefined && u.exported === targetDigest(translation)) return { unchanged: true };
  return { translation, found };
}

export async function importXliff(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
  files: readonly string[],
): Promise<XliffImportSummary> {
  const docs = await roundTripDocuments(loaded, state, {});
  const byId = new Map<string, Found>();
  for (const doc of docs) for (const unit of doc.units) byId.set(unit.id, { doc, unit });
  const summary: XliffImportSummary = {
    taken: [],
    refused: [],
    unchanged: 0,
    importId: undefined,
    outputs: [],
    written: [],
  };
  const rows: BroughtRow[] = [];
  const now = new Date().toISOString();
  for (const file of files)
    for (const u of readXliffUnits(file)) {
      const r = judge(u, file, byId, docs);
      if ('refused' in r && r.refused) summary.refused.push(r.refused);
      else if ('unchanged' in r) summary.unchanged++;
      else if ('found' in r && r.found) {
        const { doc, unit } = r.found;
        rows.push({
          key: anySettingsKey(unit.source, doc.sourceLang, doc.targetLang),
          source: unit.source,
          source_lang: doc.sourceLang,
          target_lang: doc.targetLang,
          translation: r.translation,
          changed_at: now,
          document: doc.source,
        });
        summary.taken.push({ file, unit: u.id, document: doc.source });
      }
    }
  if (rows.length === 0) return summary;
  // Document-path outputs are written first, each checked as a sync's delivery checks it: the units
  // of one the checks refuse are refused (never applied, neither to the file nor to the memory).
  const written = await writeIntoOutputs(loaded, state, rows, docsHolding(rows, docs).document);
  summary.written = written.written;
  const kept = withoutRefused(summary, rows, written.refused);
  if (kept.length === 0) return summary;
  const writer = await memory.beginImport({ file: files.join(', '), origin: 'reviewed' });
  summary.importId = writer.id;
  try {
    await writer.put(kept);
    await writer.finish(kept.length);
  } catch (err) {
    await writer.abandon();
    throw err;
  }
  summary.outputs = await noteOutputs(loaded, state, docsHolding(kept, docs).segments);
  return summary;
}

/**
 * The rows of the units taken whose document's output the checks refused, moved from `taken` to
 * `refused` with the checks' reason; answers the rows left.
 */
function withoutRefused(
  summary: XliffImportSummary,
  rows: readonly BroughtRow[],
  refusedOutputs: ReadonlyMap<string, string>,
): BroughtRow[] {
  if (refusedOutputs.size === 0) return [...rows];
  const kept: BroughtRow[] = [];
  const taken: XliffImportSummary['taken'] = [];
  summary.taken.forEach((t, i) => {
    const why = refusedOutputs.get(`${t.document}\0${rows[i]!.target_lang}`);
    if (why === undefined) {
      taken.push(t);
      kept.push(rows[i]!);
    } else summary.refused.push({ file: t.file, unit: t.unit, why });
  });
  summary.taken = taken;
  return kept;
}

/**
 * The documents whose outputs hold a source taken: those of the units taken, and every other
 * document with the same source segment (the memory's wording is the source's, whatever the
 * document), by method.
 */
function docsHolding(rows: readonly BroughtRow[], docs: readonly RoundTripDocument[]) {
  const taken = new Set(rows.map((r) => `${r.target_lang}\0${r.source}`));
  const holding = docs.filter((doc) => doc.units.some((u) => taken.has(`${doc.targetLang}\0${u.source}`)));
  return {
    segments: holding.filter((d) => d.method === 'segments'),
    document: holding.filter((d) => d.method === 'document'),
  };
}

/**
 * The wording taken written into document-path outputs now (nothing is sent), each checked before
 * it replaces the output (../qa/gate.ts, as a sync's delivery: a refused file goes to the
 * quarantine). Answers the outputs written, and the reason of each refused, by source document and
 * target language.
 */
async function writeIntoOutputs(
  loaded: LoadedManifest,
  state: RunState,
  rows: readonly BroughtRow[],
  docs: readonly RoundTripDocument[],
): Promise<{ written: string[]; refused: Map<string, string> }> {
  const written: string[] = [];
  const refused = new Map<string, string>();
  if (docs.length === 0) return { written, refused };
  // A refusal is not recorded: the output the last verdict was about stays in place.
  const gate = new OutputGate(loaded, quarantineDirOf(loaded.statePath), undefined);
  const verdicts = new OutputGate(loaded, quarantineDirOf(loaded.statePath), state.qaResults);
  for (const doc of docs) {
    const wording = new Map(
      rows.filter((r) => r.target_lang === doc.targetLang).map((r) => [r.source, r.translation]),
    );
    const job = await checkedJobOf(state, doc);
    let result: QaResult | undefined;
    try {
      const vet = async (part: string) => {
        result = await gate.vet(job, path.resolve(loaded.dir, doc.source), part);
      };
      if (await writeIntoOutput(loaded, doc, wording, vet)) written.push(doc.output);
    } catch (err) {
      if (!(err instanceof QaFailedError)) throw err;
      refused.set(`${doc.source}\0${doc.targetLang}`, `not written into ${doc.output}: ${err.message}`);
      continue;
    }
    // The output is the translator's version now: its verdict is the one kept.
    if (result && job.id > 0) await verdicts.record(job, result);
  }
  return { written, refused };
}

/** The output's side of the checks: the job that delivered it (id 0 when none is recorded). */
async function checkedJobOf(state: RunState, doc: RoundTripDocument): Promise<CheckedJob> {
  const done = await state.jobs.latestDoneOf(doc.output);
  return {
    id: done?.id ?? 0,
    mapping: doc.mapping,
    rel_path: done?.rel_path ?? doc.source,
    target_lang: doc.targetLang,
    output_path: doc.output,
  };
}

/** Segment-path outputs holding a source taken wait for the next sync to write it. Answers them. */
async function noteOutputs(
  loaded: LoadedManifest,
  state: RunState,
  docs: readonly RoundTripDocument[],
): Promise<string[]> {
  const index = await OutputIndex.load(state.jobs);
  const noted: ImportedWording[] = [];
  for (const doc of docs) {
    const done = await index.doneOf(doc.output);
    if (done) noted.push({ mapping: doc.mapping, output: doc.output, job_id: done.id });
  }
  await noteImportedWording(state, path.dirname(loaded.statePath), noted, index);
  return noted.map((w) => w.output);
}
