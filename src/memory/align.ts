import fs from 'node:fs';
import path from 'node:path';
import {
  DocumentFormatError,
  openDocument,
  taggedText,
  type FormatOptions,
  type Segment,
} from '../documents/index.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { BroughtRow, TranslationMemory } from '../state/memory-types.js';
import { makePlan, type RunState } from '../sync/engine.js';
import type { TranslateAction } from '../sync/plan/types.js';
import { readSegments } from '../sync/segments/document-segments.js';
import { anySettingsKey } from '../sync/segments/memory-key.js';
import { outputFile } from '../manifest/in-place-output.js';

// `locsync memory align` (docs/memory.md): translations made before locsync seed the memory. Each
// source the plan would translate is paired with the output already at its place, both read with
// the document layer; where they have the same segments in the same order (same role, same inline
// tags: the same pieces, codes at the same places), each pair is stored as reviewed (a person's
// translation, used whatever the style list or glossary). Where they part, the file is listed with
// the first place, and nothing of it is stored: a guess would put wrong wording into every output.

export interface AlignOptions {
  mapping?: string;
  lang?: string;
}

export interface Mismatch {
  source: string;
  output: string;
  why: string;
}

export interface AlignSummary {
  importId: number | undefined;
  /** Documents whose pairs were stored. */
  aligned: number;
  stored: number;
  mismatched: Mismatch[];
  /** Outputs the plan names that are not on disk. */
  missing: number;
}

/** Where a source and its translation part first, or undefined when every segment pairs up. */
export function firstDifference(source: readonly Segment[], output: readonly Segment[]): string | undefined {
  const n = Math.min(source.length, output.length);
  for (let i = 0; i < n; i++) {
    const s = source[i] as Segment;
    const o = output[i] as Segment;
    const at = `segment ${i + 1} (source ${s.where}, output ${o.where})`;
    if (s.role !== o.role) return `${at}: the source has a ${s.role}, the output a ${o.role}`;
    const shape = (x: Segment) => x.pieces.map((p) => (p.code ? 'c' : 't')).join('');
    if (shape(s) !== shape(o))
      return `${at}: the inline tags differ (source ${s.pieces.length} pieces, output ${o.pieces.length})`;
  }
  if (source.length !== output.length)
    return `the source has ${source.length} segments, the output ${output.length} (they part after segment ${n})`;
  return undefined;
}

/**
 * The segments of an output in `lang`: a bilingual file's translations, a file of several languages
 * (a String Catalog, a CSV file's column) that language's, read as its mapping says (`read`).
 */
export async function outputSegments(
  file: string,
  format: string,
  lang: string,
  read: FormatOptions | undefined,
): Promise<Segment[]> {
  const doc = await openDocument(file, {
    format,
    side: 'target',
    lang,
    ...(read ? { formatOptions: read } : {}),
  });
  const out: Segment[] = [];
  for await (const s of doc.segments()) out.push(s);
  return out;
}

/**
 * Whether the output of `a` has its source's format, so its segments pair with the source's: not
 * a conversion (pdf → docx), which has no segments to pair. A part of an in-place file
 * (`App/Localizable.xcstrings#de`) is of its file's format.
 */
export function pairsWithSource(a: TranslateAction): boolean {
  return path.extname(outputFile(a.ref.output)).slice(1).toLowerCase() === a.source.ext;
}

/** The pairs of one document, or why it does not align. */
async function alignOne(loaded: LoadedManifest, a: TranslateAction): Promise<BroughtRow[] | string> {
  const sourceAbs = path.resolve(loaded.dir, a.source.path);
  const outputAbs = path.resolve(loaded.dir, outputFile(a.ref.output));
  const request = a.settings.request;
  const sourceLang = request.source_lang?.toLowerCase() ?? null;
  let read;
  let output;
  try {
    read = await readSegments(sourceAbs, a.source.ext, {
      sourceLang: request.source_lang,
      targetLang: request.target_lang,
      settings: '',
      read: request.segments?.read,
    });
    output = await outputSegments(outputAbs, a.source.ext, a.ref.target, request.segments?.read);
  } catch (err) {
    if (err instanceof DocumentFormatError) return `cannot be read: ${err.message}`;
    throw err;
  }
  const why = firstDifference(
    read.segments.map((s) => s.segment),
    output,
  );
  if (why) return why;
  const changed = fs.statSync(outputAbs).mtime.toISOString();
  return read.segments.map((s, i) => ({
    key: anySettingsKey(s.tagged, sourceLang, a.ref.target),
    source: s.tagged,
    source_lang: sourceLang,
    target_lang: a.ref.target,
    translation: taggedText(output[i] as Segment),
    changed_at: changed,
    document: a.source.path,
  }));
}

export async function alignOutputs(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
  opts: AlignOptions,
): Promise<AlignSummary> {
  const { plan } = await makePlan({ loaded, state });
  const actions = plan.actions.filter(
    (a): a is TranslateAction =>
      a.kind === 'translate' &&
      (opts.mapping === undefined || a.ref.mapping === opts.mapping) &&
      (opts.lang === undefined || a.ref.target === opts.lang) &&
      pairsWithSource(a),
  );
  const summary: AlignSummary = { importId: undefined, aligned: 0, stored: 0, mismatched: [], missing: 0 };
  const writer = await memory.beginImport({ file: 'align', origin: 'reviewed' });
  summary.importId = writer.id;
  try {
    for (const a of actions) {
      if (!fs.existsSync(path.resolve(loaded.dir, outputFile(a.ref.output)))) {
        summary.missing++;
        continue;
      }
      const rows = await alignOne(loaded, a);
      if (typeof rows === 'string') {
        summary.mismatched.push({ source: a.source.path, output: a.ref.output, why: rows });
        continue;
      }
      const c = await writer.put(rows);
      summary.stored += c.stored;
      summary.aligned++;
    }
    await writer.finish(summary.aligned);
  } catch (err) {
    await writer.abandon();
    throw err;
  }
  return summary;
}
