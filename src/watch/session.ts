import { billedThisMonth } from '../billing/ledger.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { SyncEvents } from '../sync/events.js';
import type { SyncSummary } from '../sync/summary.js';
import { SyncRun, type ReconcileFn, type RunState, type SyncConnection } from '../sync/sync-run.js';
import type { PollTiming } from '../sync/timing.js';

// The runs of `locsync watch`: one at a time, the next one opened at every rescan and applied
// manifest edit, each with watch's own settings.

/** Opens the run a watch session works in. */
export async function openWatchSession(args: {
  loaded: LoadedManifest;
  connection: SyncConnection;
  state: RunState;
  logger: Logger;
  events: SyncEvents;
  poll?: Partial<PollTiming> | undefined;
  reconcile?: ReconcileFn | undefined;
}): Promise<SyncRun> {
  const perMonth = args.loaded.manifest.budget?.per_month;
  const billed = perMonth !== undefined ? await billedThisMonth(args.state) : 0;
  return SyncRun.open({
    loaded: args.loaded,
    connection: args.connection,
    state: args.state,
    logger: args.logger,
    events: args.events,
    ...(args.reconcile ? { reconcile: args.reconcile } : {}),
    options: {
      command: 'watch',
      stopDeadlineMs: args.loaded.manifest.watch.shutdown * 1000,
      // The monthly cap holds in watch (budget.per_run is a sync's); each session (a periodic
      // rescan starts the next) counts the month anew, so a new month uploads again.
      ...(perMonth !== undefined ? { budget: { caps: { perMonth }, billedThisMonth: billed } } : {}),
      ...(args.poll ? { poll: args.poll } : {}),
    },
  });
}

/** The last line of a watch: what it did, and what it left for the next start. */
export function logStopped(logger: Logger, summary: SyncSummary): void {
  logger.info(
    {
      uploads: summary.uploads,
      translated: summary.translated,
      reused: summary.reused,
      left: summary.left,
      left_uploaded: summary.leftUploaded,
    },
    summary.left
      ? `stopped: ${summary.left} outputs left for the next start (${summary.leftUploaded} already uploaded: collected, not paid again)`
      : 'stopped',
  );
}
