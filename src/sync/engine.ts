import { silentLogger, type Logger } from '../log/logger.js';
import type { TerminologyPlan } from '../styles/terminology.js';
import { createSyncEvents, type SyncEvents } from './events.js';
import type { Plan } from './plan/types.js';
import { groupPlan, type SyncPlan } from './plan/view.js';
import { SyncRun, openPlanner, reconcileForPlan, type SyncRunArgs } from './sync-run.js';
import type { SyncSummary } from './summary.js';

export type { SyncConnection, SyncOptions, ReconcileFn, RunState } from './sync-run.js';
export type { SyncSummary } from './summary.js';
export type { SyncPlan } from './plan/view.js';

export type RunSyncArgs = SyncRunArgs & { connection: NonNullable<SyncRunArgs['connection']> };

/**
 * One `sync`: style lists applied, then the plan made (recorded uploads resumed, every mapping
 * scanned, removed sources last) and carried out. Resolves to the summary (the run is recorded in the
 * runs table). An AuthError or an internal error is thrown after the run is recorded.
 */
export async function runSync(args: RunSyncArgs): Promise<SyncSummary> {
  const run = await SyncRun.open(args);
  try {
    await run.reconcileStyles();
    await run.scanAll();
    await run.drainWithOtherWorkers();
  } catch (err) {
    await run.stop({ deadlineMs: 0, interrupted: false }).catch(() => undefined);
    await run.finish('failed', err);
    throw err;
  }
  const summary = await run.finish();
  const fatal = run.fatalError();
  if (fatal) throw Object.assign(fatal, { summary });
  return summary;
}

export interface PlanSyncArgs extends Omit<SyncRunArgs, 'logger' | 'events'> {
  logger?: Logger;
  events?: SyncEvents;
}

/**
 * What `sync` would do, by the same sequence without carrying anything out (nothing uploaded,
 * nothing written, not even file hashes): style lists compared (not applied) when connected, then
 * the plan.
 */
export async function makePlan(
  args: PlanSyncArgs,
): Promise<{ plan: Plan; styles: TerminologyPlan | undefined }> {
  const full: SyncRunArgs = { ...args, logger: args.logger ?? silentLogger() };
  const planner = await openPlanner(full, args.events ?? createSyncEvents());
  const styles = await reconcileForPlan(full, planner, false);
  const { plan } = await planner.plan();
  return { plan, styles };
}

/** The plan of makePlan, grouped by what its actions do (status shows its stale and skipped parts). */
export async function planSync(args: PlanSyncArgs): Promise<SyncPlan> {
  return groupPlan((await makePlan(args)).plan);
}
