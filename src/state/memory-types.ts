// The translation memory as a whole (docs/memory.md): what `locsync memory import|export|align|
// stats|forget` read and write, beside the segment path's own use of it (SegmentMemory). Rows
// brought in from outside (a TMX file, translations made before locsync) have origin `imported` or
// `reviewed`, a key without translation settings (src/sync/segments/memory-key.ts anySettingsKey):
// they are used whatever the style list, glossary or formality.

/**
 * Where a remembered segment translation came from: the service, a person's review (an edit of an
 * output, an aligned translation), or a translation memory imported (docs/memory.md).
 */
export type SegmentOrigin = 'service' | 'reviewed' | 'imported';

/** A remembered translation with where it came from. */
export interface Recalled {
  translation: string;
  origin: SegmentOrigin;
  /** The run that stored it (null: brought in, or another pipeline's memory). */
  run_id: number | null;
}

/** The origins a row brought in from outside may have. */
export type BroughtOrigin = Extract<SegmentOrigin, 'reviewed' | 'imported'>;
export const BROUGHT_ORIGINS: readonly BroughtOrigin[] = ['imported', 'reviewed'];

/** One translation brought in (an import's or an alignment's). */
export interface BroughtRow {
  key: string;
  /** The source segment in the pipeline's tagged form (src/documents/tagged.ts). */
  source: string;
  source_lang: string | null;
  target_lang: string;
  translation: string;
  /** When it was last changed where it came from (ISO 8601): the newest of duplicates wins. */
  changed_at: string | null;
  /** The document it came from, when known. */
  document: string | null;
}

/** What storing a batch did: new rows, rows replaced by a newer one, duplicates older than the row kept. */
export interface PutCounts {
  stored: number;
  replaced: number;
  older: number;
}

/** One import (or alignment) in progress: everything it stores is one transaction. */
export interface MemoryImportWriter {
  /** Its id (memory_imports.id): `memory forget --import <id>` takes it back. */
  readonly id: number;
  put(rows: readonly BroughtRow[]): Promise<PutCounts>;
  /** Everything stored, and the import recorded with its count of units. */
  finish(units: number): Promise<void>;
  /** Nothing of it is kept. */
  abandon(): Promise<void>;
}

export interface MemoryImportRecord {
  id: number;
  /** The file imported, or "align" for an alignment of existing outputs. */
  file: string;
  origin: BroughtOrigin;
  imported_at: string;
  /** Translations stored by it that are still in the memory. */
  units: number;
}

export interface MemoryStatsRow {
  source_lang: string | null;
  target_lang: string;
  origin: SegmentOrigin;
  units: number;
}

export interface MemoryStats {
  pairs: MemoryStatsRow[];
  imports: MemoryImportRecord[];
  /** Bytes the memory's rows take in the state (undefined: the backend cannot tell). */
  bytes: number | undefined;
}

/** A memory row as export writes it. */
export interface ExportedRow {
  source: string;
  source_lang: string | null;
  target_lang: string;
  translation: string;
  origin: SegmentOrigin;
  created_at: string;
  changed_at: string | null;
  document: string | null;
}

export interface ExportFilter {
  targetLang?: string;
  origins?: readonly SegmentOrigin[];
}

export interface TranslationMemory {
  beginImport(meta: { file: string; origin: BroughtOrigin }): Promise<MemoryImportWriter>;
  stats(): Promise<MemoryStats>;
  /** Remove every row of one origin, or of one import: answers how many. */
  forget(what: { origin: SegmentOrigin } | { importId: number }): Promise<number>;
  /** Source languages of the rows `rows(filter)` gives (the TMX header's srclang). */
  sourceLanguages(filter: ExportFilter): Promise<Array<string | null>>;
  /** The rows, in pages (bounded memory whatever its size). */
  rows(filter: ExportFilter): AsyncIterable<ExportedRow>;
}
