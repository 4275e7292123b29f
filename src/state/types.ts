// The state interface: what the sync engine (src/sync) and the style reconciler (src/styles) need to
// remember between runs. The SQLite backend (src/state/sqlite) implements it; a second backend
// (PostgreSQL, several machines) implements the same interface. Every call returns a Promise so that
// an asynchronous client can stand behind it; reads the no-op scan makes per file come in bulk (one
// call per mapping), so a remote backend is not asked 100,000 times.
//
// One file per area, each imported where only that area is needed: the job ledger (job-types.ts),
// the file inventory and content digests (file-types.ts), the run log (run-types.ts), style lists
// and glossaries applied (terminology-types.ts), the segment memory (segment-types.ts, and the
// memory as a whole: memory-types.ts), the output checks' verdicts (qa-types.ts), outputs waiting for imported wording (wording-types.ts), what several
// workers share (shared-types.ts). This file is the whole interface: SyncState, and every area.
import type { ContentDigests, FileInventory } from './file-types.js';
import type { JobLedger } from './job-types.js';
import type { TranslationMemory } from './memory-types.js';
import type { QaResultStore } from './qa-types.js';
import type { RunLog } from './run-types.js';
import type { SegmentMemory } from './segment-types.js';
import type { ReuseAcrossPipelines, SharedWork } from './shared-types.js';
import type { AppliedGlossary, AppliedStyle } from './terminology-types.js';
import type { ImportedWordingStore } from './wording-types.js';

export type * from './job-types.js';
export type * from './file-types.js';
export type * from './run-types.js';
export type * from './terminology-types.js';
export type * from './segment-types.js';
export type * from './shared-types.js';
export type * from './qa-types.js';
export type * from './wording-types.js';
export type { Recalled, SegmentOrigin } from './memory-types.js';

/** The state a sync works with. */
export interface SyncState {
  /** Where the state lives, for messages (a file path, a database name). */
  readonly location: string;
  readonly jobs: JobLedger;
  readonly files: FileInventory;
  readonly digests: ContentDigests;
  readonly runs: RunLog;
  /** What the reconciler last applied for a style list (its content hash makes outputs stale). */
  appliedStyle(key: string): Promise<AppliedStyle | undefined>;
  /** What the reconciler last applied for a glossary (its hash per language pair makes outputs stale). */
  appliedGlossary(key: string): Promise<AppliedGlossary | undefined>;
  /** Present when several workers share the state. */
  readonly shared?: SharedWork;
  /** Present when the manifest says `reuse: across_pipelines` and the state is PostgreSQL. */
  readonly acrossPipelines?: ReuseAcrossPipelines;
  /** Translated segments and the text requests that bought them (method: segments; both backends). */
  readonly segments?: SegmentMemory;
  /** The memory as a whole: import, export, stats (docs/memory.md; both backends). */
  readonly memory?: TranslationMemory;
  /** The output checks' last verdict per output (both backends; absent in hand-made test states). */
  readonly qaResults?: QaResultStore;
  /** Outputs waiting for wording imported from a translator (both backends; absent in hand-made test states). */
  readonly importedWording?: ImportedWordingStore;
}
