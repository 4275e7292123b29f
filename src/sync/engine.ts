import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { StateStore } from '../state/store.js';
import type { SyncEvents } from './events.js';
import {
  createSyncSession,
  type ReconcileFn,
  type StylePlanLike,
  type SyncConnection,
  type SyncOptions,
  type SyncPlan,
} from './session.js';
import type { SyncSummary } from './summary.js';

export type { SyncOptions, SyncPlan, SyncConnection } from './session.js';
export type { SyncSummary } from './summary.js';

export interface RunSyncArgs {
  loaded: LoadedManifest;
  connection: SyncConnection;
  state: StateStore;
  options?: SyncOptions;
  logger: Logger;
  events?: SyncEvents;
  reconcile?: ReconcileFn;
}

/**
 * One sync pass: style lists first, then recorded uploads resumed, then every mapping scanned and
 * its work done; removed sources handled last. Resolves to the summary (the run is recorded in
 * state.db's runs table). An AuthError or an internal error is thrown after the run is recorded.
 */
export async function runSync(args: RunSyncArgs): Promise<SyncSummary> {
  const session = createSyncSession(args);
  try {
    await session.reconcileStyles();
    session.enqueuePending();
    await session.scanAll();
    await session.drain();
  } catch (err) {
    await session.stop({ deadlineMs: 0 }).catch(() => undefined);
    session.finish('failed');
    throw err;
  }
  const summary = session.finish();
  const fatal = session.fatalError();
  if (fatal) throw Object.assign(fatal, { summary });
  return summary;
}

export interface PlanSyncArgs {
  loaded: LoadedManifest;
  state: StateStore;
  /** The style reconciler's dry-run answer: style ids, and lists whose change makes outputs stale. */
  styles?: StylePlanLike;
  options?: Pick<SyncOptions, 'only' | 'retranslate'>;
  logger?: Logger;
}

/**
 * What `sync` would do, without uploading or writing anything (not even file hashes): files to
 * translate, outputs to reuse (copies), recorded uploads to resume, stale outputs, unchanged units,
 * unsupported files, outputs to delete.
 */
export async function planSync(args: PlanSyncArgs): Promise<SyncPlan> {
  const session = createSyncSession({
    loaded: args.loaded,
    state: args.state,
    logger: args.logger ?? silentLogger(),
    options: { ...args.options, dryRun: true },
  });
  if (args.styles) session.useStylePlan(args.styles);
  session.enqueuePending();
  await session.scanAll();
  await session.drain();
  return session.plan();
}
