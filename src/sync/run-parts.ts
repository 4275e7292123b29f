import type { ServiceClient } from '../api/client.js';
import { LazyCounter } from '../billing/characters.js';
import { SpendGuard } from '../billing/spend-guard.js';
import { OutputGate } from '../qa/gate.js';
import { quarantineDirOf } from '../qa/quarantine.js';
import { spoolDirOf, sweepSpool } from '../util/spool.js';
import type { SyncEvents } from './events.js';
import type { Planner } from './plan/planner.js';
import type { SyncRunArgs } from './run-args.js';
import { AccountPlaces, AccountSlots } from './run/account-places.js';
import { RunControl } from './run/control.js';
import { Executor } from './run/executor.js';
import { DocumentMethod, type DocumentClient } from './run/document-method.js';
import { JobLifecycle } from './run/job-lifecycle.js';
import { DownloadSlots, WorkerPlaces, type WorkerPlacePool, type DownloadSlotPool } from './run/places.js';
import { LiveSummary } from './run/live-summary.js';
import { RunLedger } from './run/run-ledger.js';
import { WatchedPlaces } from './segments/places-watch.js';
import { SegmentMethod } from './segments/segment-method.js';
import { sharedRecall } from './segments/shared-recall.js';
import { pollTiming } from './timing.js';

// The parts a run is made of, built once when it opens: its record, report and control, the
// limits on work in flight, the spend guard, the ledger (the one writer of job rows), the job
// driver of both methods and the executor.

/** What SyncRun.open builds for a run. */
export interface RunParts {
  runId: number;
  report: LiveSummary;
  control: RunControl;
  executor: Executor;
  /** Counts the characters of sources for the budget; closed when the run finishes. */
  counter: LazyCounter;
  /** The output checks of every output the run writes. */
  gate: OutputGate;
}

/** Builds the parts of a run planned by `planner` (its run row is started here). */
export async function buildRunParts(
  args: SyncRunArgs,
  client: ServiceClient | DocumentClient,
  planner: Planner,
  events: SyncEvents,
): Promise<RunParts> {
  const opts = args.options ?? {};
  const svc = args.loaded.manifest.service;
  const runId = await args.state.runs.start(opts.command ?? 'sync');
  const report = new LiveSummary(runId, events, args.logger);
  const control = new RunControl(report, svc.key_env);
  const { places, slots } = await runLimits(args, client);
  const counter = new LazyCounter();
  const guard =
    opts.budget && Object.keys(opts.budget.caps).length > 0
      ? new SpendGuard({
          ...opts.budget,
          count: (abs) => counter.count(abs),
          ...(args.state.shared ? { shared: args.state.shared.budget } : {}),
        })
      : undefined;
  // Spool files of outputs already recorded (a worker stopped right before removing them).
  const spoolDir = spoolDirOf(args.loaded.statePath);
  const swept = await sweepSpool(spoolDir, (ids) => args.state.jobs.doneDocuments(ids));
  if (swept.length)
    args.logger.info({ documents: swept.length }, 'spool files of outputs already written removed');
  // The one writer of job rows, of the output index the planner reads and of the run's counts.
  const ledger = new RunLedger({ jobs: args.state.jobs, index: planner.index, report });
  const gate = new OutputGate(args.loaded, quarantineDirOf(args.loaded.statePath), args.state.qaResults);
  // Jobs of method: segments go the segment path (src/sync/segments), the others the document path;
  // both through the one lifecycle of a job. The pool of text requests sees the jobs on their way.
  const deps = {
    memory: args.state.segments && sharedRecall(args.state.segments),
    client,
    ledger,
    jobs: args.state.jobs,
    files: args.state.files,
    report,
    control,
    places: new WatchedPlaces(places),
    slots,
    concurrency: Math.max(1, opts.concurrency ?? svc.concurrency),
    timing: pollTiming(opts.poll),
    logger: args.logger,
    runId,
    maxAttempts: args.loaded.manifest.max_attempts,
    retryUnanswered: svc.retry_unanswered_uploads,
    base: args.loaded.dir,
    spoolDir,
    gate,
    ...(guard ? { guard } : {}),
    ...(args.state.shared ? { shared: args.state.shared } : {}),
    ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
  };
  const driver = new JobLifecycle(deps, [new SegmentMethod(deps), new DocumentMethod(deps)]);
  const executor = new Executor({
    loaded: args.loaded,
    state: args.state,
    index: planner.index,
    ledger,
    driver,
    report,
    control,
    places: driver.places,
    slots,
    logger: args.logger,
    runId,
    ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
  });
  return { runId, report, control, executor, counter, gate };
}

/**
 * The run's limits on documents in flight: this process's own, or, when several workers share the
 * state, places of the account's limits that hold for all of them together (and the client takes
 * the account's request tokens and honours a slow-down seen by any worker).
 */
async function runLimits(
  args: SyncRunArgs,
  client: ServiceClient | DocumentClient,
): Promise<{ places: WorkerPlacePool; slots: DownloadSlotPool }> {
  const svc = args.loaded.manifest.service;
  const opts = args.options ?? {};
  const concurrency = Math.max(1, opts.concurrency ?? svc.concurrency);
  const maxUndownloaded = Math.max(1, opts.maxUndownloaded ?? svc.max_undownloaded);
  const shared = args.state.shared;
  if (!shared) return { places: new WorkerPlaces(concurrency), slots: new DownloadSlots(maxUndownloaded) };
  const limits = shared.accountLimits({
    concurrency,
    maxUndownloaded,
    requestsPerSecond: svc.requests_per_second,
    ...(args.connection?.account ? { account: args.connection.account } : {}),
  });
  await limits.prepare();
  if ('shareAccountLimits' in client) client.shareAccountLimits(limits);
  return { places: new AccountPlaces(limits), slots: new AccountSlots(limits) };
}
