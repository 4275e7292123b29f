import type { ServiceClient } from '../api/client.js';
import type { BudgetCaps } from '../billing/budget.js';
import type { Logger } from '../log/logger.js';
import type { DriftPolicy, LoadedManifest } from '../manifest/types.js';
import type { GlossaryStateStore, StyleStateStore, SyncState } from '../state/types.js';
import type { TerminologyArgs, TerminologyPlan } from '../styles/terminology.js';
import type { SyncEvents } from './events.js';
import type { DocumentClient } from './run/document-method.js';
import type { PollTiming } from './timing.js';

// What a run (one `sync`, `plan`, or one watch session) is opened with.

export interface SyncConnection {
  client: ServiceClient | DocumentClient;
  /** The service account (a fingerprint of its key, never the key): whose limits the run shares. */
  account?: string;
}

export type ReconcileFn = (args: TerminologyArgs) => Promise<TerminologyPlan>;

/**
 * The state a run works with: the state interface, and the applied style lists and glossaries the
 * reconcilers keep.
 */
export type RunState = SyncState & StyleStateStore & { glossaries: GlossaryStateStore };

export interface SyncOptions {
  /** Mapping names to work on (default: all). */
  only?: string[];
  /** `--retranslate`: stale (style list, glossary or settings changed), style, settings or all (billed). */
  retranslate?: string;
  /** `--retry-failed-qa`: outputs that failed a hard check (docs/qa.md) are bought again. */
  retryFailedQa?: boolean;
  /** A one-off drift policy for the style lists and glossaries of this run. */
  drift?: DriftPolicy;
  /** `--overwrite-edits`: outputs edited by people are replaced (src/sync/run/edited-output.ts). */
  overwriteEdits?: boolean;
  signal?: AbortSignal;
  /** Poll timing overrides (tests); LOCSYNC_POLL_* env vars apply too. */
  poll?: Partial<PollTiming>;
  /** Override the manifest's service.concurrency. */
  concurrency?: number;
  /** Override the manifest's service.max_undownloaded. */
  maxUndownloaded?: number;
  /** Command recorded in the runs table (default 'sync'). */
  command?: string;
  /** When `signal` aborts: how long jobs in flight may still finish, ms (default 30 s). */
  stopDeadlineMs?: number;
  /** Aborted on a second stop signal: the grace ends at once (see Executor.stopWaiting). */
  stopWaiting?: AbortSignal;
  /**
   * Budget caps held while the run goes on (the plan was checked against them before): an upload
   * that would exceed one is not made, and uploads stop for the rest of the run.
   */
  budget?: { caps: BudgetCaps; billedThisMonth: number; known?: ReadonlyMap<string, number> };
}

export interface SyncRunArgs {
  loaded: LoadedManifest;
  state: RunState;
  logger: Logger;
  events?: SyncEvents;
  /** Needed to reconcile style lists and to carry a plan out. */
  connection?: SyncConnection;
  options?: SyncOptions;
  /** The style list and glossary reconciler (default: reconcileTerminology of src/styles/terminology.ts). */
  reconcile?: ReconcileFn;
}
