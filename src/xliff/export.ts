import fs from 'node:fs';
import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { TranslationMemory } from '../state/memory-types.js';
import type { RunState } from '../sync/engine.js';
import { ConfigError } from '../util/errors.js';
import { PartFile } from '../util/part-file.js';
import { changedSince } from './since.js';
import { roundTripDocuments, type RoundTripDocument, type RoundTripUnit, type UnitFilter } from './units.js';
import { memoryOrigins } from './wording.js';
import { xliff21File, xliffFile, type XliffVersion } from './writer.js';

// `locsync xliff export -o <file or folder>` (docs/xliff.md): the segments of the pipeline's
// documents with their current wording, for a translator's CAT tool. Each unit's state says whose
// wording it is (the memory's origin of that source and translation). `-o` a folder (one that
// exists, or a name ending in /): a file per target language, <lang>.xlf. XLIFF 2.1 holds one
// target language per file, so it needs --lang or a folder when the plan has several. Each file is
// written through a part file; one that would hold no unit is not written (XLIFF needs a <file>,
// 2.x a unit in it: an empty file would not validate, and the translator has nothing to do).

export interface XliffExportOptions extends UnitFilter {
  out: string;
  /**
   * all (default), unreviewed: units without a person's wording, changed: units changed since
   * `since` (which --since alone asks for).
   */
  only: 'all' | 'unreviewed' | 'changed';
  /** A run id or a git ref (since.ts). */
  since?: string;
  /** 1.2 (default) or 2.1. */
  xliff?: XliffVersion;
}

export interface XliffExportSummary {
  /** The files written, in target-language order. */
  files: string[];
  /**
   * The files not written because they would hold no unit (nothing changed, everything reviewed):
   * XLIFF has a <file> and, in 2.x, a unit in it at least, and a translator has nothing to do.
   */
  empty: string[];
  documents: number;
  units: number;
}

/** Where each target language's documents go: one file, or a file per language in a folder. */
function filesFor(out: string, langs: readonly string[], version: XliffVersion): Map<string, string[]> {
  const folder =
    out.endsWith('/') || out.endsWith(path.sep) || fs.statSync(out, { throwIfNoEntry: false })?.isDirectory();
  if (folder) return new Map(langs.map((l) => [path.join(out, `${l}.xlf`), [l]]));
  if (version === '2.1' && langs.length > 1)
    throw new ConfigError(
      `XLIFF 2.1 holds one target language per file, and the export has ${langs.join(', ')}: name one with --lang, or give -o a folder (a file per language)`,
    );
  return new Map([[out, [...langs]]]);
}

async function writeFile(file: string, text: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const part = await PartFile.open(path.resolve(file), String(process.pid), { exclusive: false });
  try {
    await part.handle.write(text);
    await part.commit();
  } catch (err) {
    await part.discard();
    throw err;
  }
}

export async function exportXliff(
  loaded: LoadedManifest,
  state: RunState,
  memory: TranslationMemory,
  opts: XliffExportOptions,
): Promise<XliffExportSummary> {
  const version = opts.xliff ?? '1.2';
  const docs = await roundTripDocuments(loaded, state, opts);
  const originOf = await memoryOrigins(memory, docs, opts.lang);
  if (opts.only === 'changed' && opts.since === undefined)
    throw new ConfigError('--only changed needs --since RUN|REF: changed since when');
  const changed = opts.since === undefined ? undefined : await changedSince(loaded, state, opts.since, docs);
  let units = 0;
  const keep = (d: RoundTripDocument, u: RoundTripUnit) => {
    const k =
      (changed === undefined || changed(d, u)) &&
      (opts.only !== 'unreviewed' || originOf(d, u) !== 'reviewed');
    if (k) units++;
    return k;
  };
  const langs = [...new Set(docs.map((d) => d.targetLang))].sort();
  const files = filesFor(opts.out, langs.length > 0 ? langs : [opts.lang ?? 'none'], version);
  const written: string[] = [];
  const empty: string[] = [];
  for (const [file, of] of files) {
    const these = docs.filter((d) => of.includes(d.targetLang));
    const before = units;
    const text = version === '2.1' ? xliff21File(these, originOf, keep) : xliffFile(these, originOf, keep);
    if (units === before) {
      empty.push(file);
      continue;
    }
    await writeFile(file, text);
    written.push(file);
  }
  return { files: written, empty, documents: docs.length, units };
}
