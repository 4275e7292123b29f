import { silentLogger, type Logger } from '../log/logger.js';
import type { TerminologyPlan } from '../styles/terminology.js';
import { HeldPlan } from './run/held-plan.js';
import { createSyncEvents, type SyncEvents } from './events.js';
import type { Plan, PlannedAction } from './plan/types.js';
import { groupPlan, type SyncPlan } from './plan/view.js';
import { drifted, reconcileForPlan } from './run-terminology.js';
import { SyncRun, openPlanner, type SyncRunArgs } from './sync-run.js';
import type { SyncSummary } from './summary.js';

export type { SyncConnection, SyncOptions, ReconcileFn, RunState } from './sync-run.js';
export type { SyncSummary } from './summary.js';
export type { SyncPlan } from './plan/view.js';

/**
 * What the check of a run's plan answers (cli/sync-gate.ts: price, budgets, saved plan). It throws
 * to refuse the run (nothing is recorded as started, nothing uploaded).
 */
export interface CheckedPlan {
  /** What the plan priced each upload at (SpendGuard's estimates during the run). */
  known?: ReadonlyMap<string, number>;
  /**
   * The actions to carry out instead of the plan's own: a saved plan's (`sync --plan`), which the
   * check found to be the same work as the plan made now.
   */
  actions?: PlannedAction[];
  /** The saved plan's file: the run is held to those actions while it goes on (./run/held-plan.ts). */
  heldTo?: string;
}

export type RunSyncArgs = SyncRunArgs & {
  connection: NonNullable<SyncRunArgs['connection']>;
  /** Checks the run's one plan before anything of it is carried out. */
  check?: (plan: Plan) => Promise<CheckedPlan | undefined>;
};

/**
 * One `sync`, one plan carried out as planned: style lists and glossaries reconciled (applied),
 * then the plan made (recorded uploads resumed, every mapping scanned, removed sources last),
 * checked (`check`), and carried out, that plan and nothing else. Resolves to the summary (the run
 * is recorded in the runs table). An AuthError or an internal error is thrown after the run is
 * recorded; an error before the run starts (the reconcilers, a refused check) is thrown as it is.
 */
export async function runSync(args: RunSyncArgs): Promise<SyncSummary> {
  const { check, ...rest } = args;
  const full: SyncRunArgs = { ...rest, events: args.events ?? createSyncEvents() };
  const planner = await openPlanner(full, full.events!);
  const styles = await reconcileForPlan(full, planner, true);
  const { plan } = await planner.plan();
  const checked = await check?.(plan);
  const known = checked?.known;
  const budget = full.options?.budget;
  const run = await SyncRun.open(
    budget && known ? { ...full, options: { ...full.options, budget: { ...budget, known } } } : full,
    { planner, drifted: drifted(styles) },
  );
  if (checked?.actions && checked.heldTo) run.holdTo(new HeldPlan(checked.heldTo, checked.actions));
  try {
    await run.carryOut({ plan: checked?.actions ? { ...plan, actions: checked.actions } : plan });
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
