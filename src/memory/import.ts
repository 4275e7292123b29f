import path from 'node:path';
import type { LoadedManifest } from '../manifest/types.js';
import type { BroughtOrigin, BroughtRow, TranslationMemory } from '../state/memory-types.js';
import { anySettingsKey } from '../sync/segments/memory-key.js';
import { ConfigError } from '../util/errors.js';
import { taggedSource, taggedTarget } from './inline.js';
import { isLanguageTag, manifestLanguage } from './languages.js';
import { TmxError, readTmx, type TmxHeader, type TmxUnit, type TmxVariant } from './tmx-reader.js';
import { languagePairs, type LanguagePairs } from './pairs.js';

// `locsync memory import <file.tmx>` (docs/memory.md): a TMX file's units stored in the memory as
// translations brought in (origin imported, or reviewed), under keys without translation settings,
// for every language pair of the manifest (or of one mapping) the unit has. Read as a stream; stored
// in one transaction, so that a file that turns out broken at its last line stores nothing.

export interface ImportOptions {
  file: string;
  origin: BroughtOrigin;
  mapping?: string;
}

/** Units skipped for one reason: how many, and the lines of the first few. */
export interface Skipped {
  reason: string;
  units: number;
  lines: number[];
}

export interface ImportSummary {
  file: string;
  importId: number;
  origin: BroughtOrigin;
  /** Translation units read. */
  units: number;
  /** Translations read (a unit gives one per target language), by target language. */
  translations: Record<string, number>;
  /** New translations in the memory. */
  stored: number;
  /**
   * Translations of a source and language pair already read or stored by this import before (or by
   * an earlier import of the same origin): the newest by changedate is kept, the others counted here.
   */
  duplicates: number;
  skipped: Skipped[];
}

/** Rows stored per statement (a batch of the import's one transaction). */
const BATCH = 1_000;
/** Lines named per reason of a skip. */
const LINES_SHOWN = 5;

/** A TMX date (20240131T120000Z) as ISO 8601; anything else is no date. */
export function tmxDate(d: string | undefined): string | null {
  const m = d && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(d);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null;
}

class SkipCounter {
  private readonly by = new Map<string, Skipped>();
  add(reason: string, line: number): void {
    const s = this.by.get(reason) ?? { reason, units: 0, lines: [] };
    s.units++;
    if (s.lines.length < LINES_SHOWN) s.lines.push(line);
    this.by.set(reason, s);
  }
  list(): Skipped[] {
    return [...this.by.values()].sort((a, b) => b.units - a.units);
  }
}

/** The rows of one unit for the manifest's language pairs, or why it gives none. */
export function unitRows(
  unit: TmxUnit,
  header: TmxHeader,
  pairs: LanguagePairs,
  document: string,
): BroughtRow[] | string {
  const srclang = unit.srclang ?? header.srclang;
  const all = srclang.toLowerCase() === '*all*';
  const rows: BroughtRow[] = [];
  let sawSource = false;
  let sawTarget = false;
  for (const [keySource, targets] of pairs.bySource) {
    const wanted = keySource ?? (all ? undefined : srclang);
    const source = unit.variants.find((v) =>
      wanted === undefined ? true : manifestLanguage(v.lang, [wanted]) !== undefined,
    );
    if (!source || (!all && keySource && !manifestLanguage(srclang, [keySource]))) continue;
    sawSource = true;
    const src = taggedSource(source.content);
    if (!src.hasText) continue;
    for (const v of unit.variants) {
      if (v === source) continue;
      const target = manifestLanguage(v.lang, targets);
      if (!target || target === keySource) continue;
      sawTarget = true;
      const translation = taggedTarget(src, v.content);
      if (translation.trim() === '') continue;
      rows.push({
        key: anySettingsKey(src.tagged, keySource, target),
        source: src.tagged,
        source_lang: keySource,
        target_lang: target,
        translation,
        changed_at: changedAt(unit, v),
        document: unit.props.get('x-document') ?? document,
      });
    }
  }
  if (rows.length > 0) return rows;
  if (!sawSource) return `no <tuv> in the source language (${pairs.sourceNames})`;
  if (!sawTarget)
    return `no <tuv> in a target language of the manifest (${unit.variants.map((v) => v.lang).join(', ')})`;
  return 'empty segment';
}

function changedAt(unit: TmxUnit, v: TmxVariant): string | null {
  return (
    tmxDate(v.changedate) ?? tmxDate(unit.changedate) ?? tmxDate(v.creationdate) ?? tmxDate(unit.creationdate)
  );
}

function checkLanguages(file: string, unit: TmxUnit): void {
  for (const v of unit.variants)
    if (!isLanguageTag(v.lang)) throw new TmxError(file, v.line, `unknown language "${v.lang}" in xml:lang`);
  if (unit.srclang && unit.srclang !== '*all*' && !isLanguageTag(unit.srclang))
    throw new TmxError(file, unit.line, `unknown language "${unit.srclang}" in srclang`);
}

function checkHeader(file: string, header: TmxHeader, pairs: LanguagePairs): void {
  const s = header.srclang;
  if (s.toLowerCase() === '*all*') return;
  if (!isLanguageTag(s)) throw new TmxError(file, header.line, `unknown language "${s}" in srclang`);
  if (!pairs.takesSource(s))
    throw new TmxError(
      file,
      header.line,
      `the memory's source language ${s} is not the source language of ${pairs.mappingNames} (${pairs.sourceNames})`,
    );
}

/** Import a TMX file into the memory: everything or, on an error, nothing. */
export async function importTmx(
  loaded: LoadedManifest,
  memory: TranslationMemory,
  opts: ImportOptions,
): Promise<ImportSummary> {
  const pairs = languagePairs(loaded, opts.mapping);
  const document = path.basename(opts.file);
  const writer = await memory.beginImport({ file: path.resolve(opts.file), origin: opts.origin });
  const summary: ImportSummary = {
    file: opts.file,
    importId: writer.id,
    origin: opts.origin,
    units: 0,
    translations: {},
    stored: 0,
    duplicates: 0,
    skipped: [],
  };
  const skipped = new SkipCounter();
  let batch: BroughtRow[] = [];
  const flush = async (): Promise<void> => {
    const c = await writer.put(batch);
    summary.stored += c.stored;
    summary.duplicates += c.replaced + c.older;
    batch = [];
  };
  try {
    let header: TmxHeader | undefined;
    for await (const items of readTmx(opts.file)) {
      for (const item of items) {
        if (!('variants' in item)) {
          header = item;
          checkHeader(opts.file, header, pairs);
          continue;
        }
        summary.units++;
        checkLanguages(opts.file, item);
        const rows = unitRows(item, header as TmxHeader, pairs, document);
        if (typeof rows === 'string') {
          skipped.add(rows, item.line);
          continue;
        }
        for (const r of rows) {
          batch.push(r);
          summary.translations[r.target_lang] = (summary.translations[r.target_lang] ?? 0) + 1;
        }
      }
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    summary.skipped = skipped.list();
    await writer.finish(summary.units);
  } catch (err) {
    await writer.abandon();
    if (err instanceof TmxError || err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`${opts.file}: no such file`);
    throw err;
  }
  return summary;
}
