import { setTimeout as sleep } from 'node:timers/promises';
import type { LazyCounter } from '../billing/characters.js';
import { leverageOfRows } from '../billing/leverage.js';
import type { RunStopReason, SyncState } from '../state/types.js';
import type { OutputGate } from '../qa/gate.js';
import type { TerminologyPlan } from '../styles/terminology.js';
import { createSyncEvents, type SyncEvents } from './events.js';
import { Planner, type PlanOutcome } from './plan/planner.js';
import type { Observations, Plan } from './plan/types.js';
import type { SyncRunArgs } from './run-args.js';
import { stopReasonOf } from './run-outcome.js';
import { buildRunParts } from './run-parts.js';
import { drifted, reconcileForPlan } from './run-terminology.js';
import type { RunControl } from './run/control.js';
import { WAITED_ONLY, type DecideAgain } from './run/decide-again.js';
import type { Executor } from './run/executor.js';
import type { HeldPlan } from './run/held-plan.js';
import type { LiveSummary } from './run/live-summary.js';
import { summaryCounts, type SyncSummary } from './summary.js';

export type { ReconcileFn, RunState, SyncConnection, SyncOptions, SyncRunArgs } from './run-args.js';

/**
 * How often one (file, target) may be planned again within a run before it is left for the next
 * one (a report each time its planned work found something changed: ./run/decide-again.ts). A
 * unit needs at most a few; more means the same change is found again and again.
 */
const MAX_DECIDE_AGAIN = 8;

const unitKey = (mapping: string, file: string, target: string) => `${mapping}\0${file}\0${target}`;

// The run sequence shared by `sync`, `plan` and `watch`: style lists reconciled, a plan made (recorded
// uploads resumed first, every mapping scanned, deletions last), the plan carried out, the run
// recorded. `plan` stops after planning; `watch` keeps one run open and feeds it file events. The
// parts a run is made of are built in ./run-parts.ts; its style lists are ./run-terminology.ts's.

/** Open a planner for a run's manifest, state and options. */
export function openPlanner(args: SyncRunArgs, events: SyncEvents): Promise<Planner> {
  return Planner.open({
    loaded: args.loaded,
    state: args.state,
    logger: args.logger,
    events,
    options: {
      ...(args.options?.only ? { only: args.options.only } : {}),
      ...(args.options?.retranslate ? { retranslate: args.options.retranslate } : {}),
      ...(args.options?.retryFailedQa ? { retryFailedQa: true } : {}),
    },
  });
}

/** Record what planning observed: hashes, content digests, verified marks, listing snapshots. */
export async function recordObservations(state: SyncState, o: Observations): Promise<void> {
  // In one transaction: a first sync hashes every file (one commit each was a second per 10,000).
  await state.files.putAll(
    o.hashed.map((h) => ({
      mapping: h.mapping,
      rel_path: h.file,
      size: h.size,
      mtime_ms: h.mtimeMs,
      ino: h.ino,
      ctime_ms: h.ctimeMs,
      sha256: h.sha256,
    })),
  );
  if (o.digests?.length) await state.digests.put(o.digests);
  for (const v of o.verified) await state.files.verify(v.mapping, v.sig, v.files);
  for (const s of o.snapshots)
    await state.files.setSnapshot(
      s.mapping,
      {
        digest: s.digest,
        outputDirs: s.outputDirs,
        outputsDigest: s.outputsDigest,
        ...(s.outputsStamp !== undefined ? { outputsStamp: s.outputsStamp } : {}),
        folders: new Map(s.folders),
      },
      s.files,
    );
}

/** A run that carries plans out: one `sync`, or one watch session. */
export class SyncRun {
  private finished = false;
  /** `sync --plan`: the approved plan every later plan of this run is held to. */
  private held: HeldPlan | undefined;
  private drifted = false;

  private constructor(
    private readonly args: SyncRunArgs,
    readonly events: SyncEvents,
    readonly runId: number,
    readonly planner: Planner,
    private readonly report: LiveSummary,
    private readonly control: RunControl,
    private readonly executor: Executor,
    private readonly counter: LazyCounter,
    private readonly gate: OutputGate,
  ) {}

  /**
   * Open a run. `prepared`: the planner that made the run's plan (style lists already reconciled
   * through it, `drifted` when one drifted under policy fail); else a new one.
   */
  static async open(args: SyncRunArgs, prepared?: { planner: Planner; drifted: boolean }): Promise<SyncRun> {
    const client = args.connection?.client;
    if (!client) throw new Error('a run that carries out a plan needs a connection');
    const events = args.events ?? createSyncEvents();
    const opts = args.options ?? {};
    const planner = prepared?.planner ?? (await openPlanner(args, events));
    const { runId, report, control, executor, counter, gate } = await buildRunParts(
      args,
      client,
      planner,
      events,
    );
    const run = new SyncRun(args, events, runId, planner, report, control, executor, counter, gate);
    if (prepared?.drifted) run.drifted = true;
    void run.decideAgainLoop();
    const onAbort = () => void run.stop({ deadlineMs: opts.stopDeadlineMs ?? 30_000 });
    // A signal that came while the run was being prepared (pricing, the gate) stops it at once.
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const onStopWaiting = () => run.stopWaiting();
    if (opts.stopWaiting?.aborted) onStopWaiting();
    else opts.stopWaiting?.addEventListener('abort', onStopWaiting, { once: true });
    events.emit('run:start', { runId });
    return run;
  }

  /** Reconcile the manifest's style lists with the service (applied). */
  async reconcileStyles(): Promise<TerminologyPlan | undefined> {
    const plan = await reconcileForPlan(this.args, this.planner, true);
    if (drifted(plan)) this.drifted = true;
    return plan;
  }

  /** Carry out a plan: what it observed recorded, its actions executed (drain() waits for them). */
  async carryOut(
    outcome: PlanOutcome | { plan: Plan; deferred?: PlanOutcome['deferred'] },
    opts: { again?: boolean } = {},
  ): Promise<void> {
    await recordObservations(this.args.state, outcome.plan.observations);
    // A second look at what this run planned already (see LiveSummary.plannedAgain) counts nothing twice.
    if (opts.again) this.report.plannedAgain(outcome.plan);
    else this.report.planned(outcome.plan);
    // The record of what the run carries out, action by action (read back by the tests that hold a
    // run to its approved plan); written only at log level debug.
    let actions = outcome.plan.actions;
    if (this.held) {
      const { kept, refused } = this.held.split(actions);
      for (const r of refused) this.report.unitFailed(r.ref, 'not-planned', r.message, true);
      actions = kept;
    }
    // Outputs to check are coming: the language check loads meanwhile, off the run's thread.
    this.gate.expect(
      actions.flatMap((a) =>
        a.kind === 'translate' ? [{ mapping: a.ref.mapping, sourceBytes: a.source.size }] : [],
      ),
    );
    if (this.args.logger.isLevelEnabled('debug'))
      for (const action of actions) this.args.logger.debug({ action }, 'action carried out');
    this.executor.execute(actions);
    for (const ref of outcome.deferred ?? []) this.executor.after(ref);
  }

  /** From now on only what `plan` approved is carried out (`sync --plan`). */
  holdTo(plan: HeldPlan): void {
    this.held = plan;
  }

  /** Plan every (or the named) mapping and carry the plan out. */
  async scanAll(mappingNames?: string[], opts: { again?: boolean } = {}): Promise<void> {
    await this.carryOut(await this.planner.plan(mappingNames, this.executor), opts);
  }

  /**
   * The run loop's side of the executor's reports (./run/decide-again.ts): each (file, target) whose
   * planned work no longer held is planned again with what it holds now, and the new actions are
   * carried out like any plan's. Runs until the run finishes.
   */
  private async decideAgainLoop(): Promise<void> {
    for (;;) {
      const next = await this.executor.decideAgain.next();
      if (!next) return;
      // Each report is decided on its own (others are planned meanwhile); its work waits for this.
      void this.decideAgain(next.report)
        .catch((err: unknown) => {
          this.args.logger.error(
            { output: next.report.ref.output, err: (err as Error).message },
            'unexpected error',
          );
          this.control.fatal ??= err as Error;
        })
        .finally(next.taken);
    }
  }

  /** How often each (file, target) found a change since it last changed (MAX_DECIDE_AGAIN; not the waits). */
  private readonly decidedAgain = new Map<string, number>();

  private async decideAgain({ ref, because }: DecideAgain): Promise<void> {
    // After a stop nothing new is taken up: the next run plans it again.
    if (this.control.stopping) return;
    // Each report is a change the unit's work found (its source replaced, its donor changed...): a
    // unit whose work keeps finding one is left for the next run, never planned again without end.
    const unit = unitKey(ref.mapping, ref.file, ref.target);
    const times = (this.decidedAgain.get(unit) ?? 0) + (WAITED_ONLY.has(because) ? 0 : 1);
    this.decidedAgain.set(unit, times);
    if (times > MAX_DECIDE_AGAIN) {
      this.report.unitFailed(
        ref,
        'transient',
        `planned again ${MAX_DECIDE_AGAIN} times in this run (last: ${because}); left for the next run`,
        true,
      );
      return;
    }
    const plan = await this.planner.planOutput(ref, this.executor);
    if (plan) await this.carryOut({ plan }, { again: true });
  }

  /** A file appeared or changed (watch mode): plan it, carry the plan out. */
  async scanFile(mapping: string, relPath: string): Promise<void> {
    // A new change of the file (watch): its units start counting their second looks afresh.
    const prefix = unitKey(mapping, relPath, '');
    for (const unit of this.decidedAgain.keys()) if (unit.startsWith(prefix)) this.decidedAgain.delete(unit);
    const known = await this.args.state.files.get(mapping, relPath);
    const outcome = await this.planner.planFile(mapping, relPath, this.executor);
    if (outcome === 'gone') return this.fileRemoved(mapping, relPath);
    // A source file the state did not know (and that is translated): the views count it at once.
    if (!known && outcome.plan.files > 0)
      this.events.emit('source:changed', { mapping, file: relPath, change: 'added', recorded: false });
    await this.carryOut(outcome);
  }

  /** A source file was deleted (watch mode): on_source_delete applied after the work under way. */
  async fileRemoved(mapping: string, relPath: string): Promise<void> {
    const recorded = (await this.args.state.files.get(mapping, relPath)) !== undefined;
    this.events.emit('source:changed', { mapping, file: relPath, change: 'removed', recorded });
    await this.executor.drain();
    await this.carryOut({ plan: await this.planner.planRemoval(mapping, relPath) });
    await this.executor.drain();
  }

  /** Wait until every piece of work has finished (or failed), deletions included. */
  drain(): Promise<void> {
    return this.executor.drain();
  }

  /**
   * Wait until this run's work is done. With several workers on the state, also until no other
   * worker holds work (a sync's pipeline is done when every output is, whoever translated it); every
   * third of the lease it looks for the work of workers whose lease ran out (they died) and takes it
   * over — also while its own work goes on — resuming each job from its record: a document with an
   * id is collected, never uploaded again.
   */
  async drainWithOtherWorkers(): Promise<void> {
    const shared = this.args.state.shared;
    if (!shared) return this.drain();
    const period = (shared.leaseSeconds * 1000) / 3;
    let drained = false;
    const own = this.drain().then(() => (drained = true));
    while (!drained && !this.control.stopping) {
      await Promise.race([own, sleep(period)]);
      if (!drained && (await shared.orphaned()) > 0) await this.takeOver();
    }
    await own;
    let said = false;
    while (!this.control.stopping && !this.control.fatal) {
      await shared.idle();
      const held = await shared.othersAtWork();
      if (held === 0) return;
      if (!said)
        this.args.logger.info(
          { units: held },
          'waiting for the work other workers hold (taken over if they die)',
        );
      said = true;
      await sleep(period);
      await this.takeOver();
      await this.drain();
    }
  }

  /** Plan again with the open jobs this worker can take now (those of workers whose lease ran out). */
  async takeOver(): Promise<void> {
    await this.planner.index.takeOverOpen();
    await this.scanAll(undefined, { again: true });
  }

  /**
   * Stop taking new uploads; jobs in flight get until the deadline (default 30 s). A stop by signal
   * (the default) is an interrupted run; `interrupted: false` ends a run that hit an error.
   */
  stop(opts: { deadlineMs?: number; interrupted?: boolean } = {}): Promise<void> {
    return this.executor.stop(opts.deadlineMs ?? 30_000, opts.interrupted ?? true);
  }

  /** Stop waiting for translations at once (a second Ctrl-C); uploads already sent are awaited. */
  stopWaiting(): void {
    this.executor.stopWaiting();
  }

  /** The error that must stop the run (auth refused, internal error), if any. */
  fatalError(): Error | undefined {
    return this.control.fatal;
  }

  summary(): SyncSummary {
    return this.report.summary();
  }

  /** Why the run ends the way it does. */
  private stopReason(s: SyncSummary): RunStopReason | undefined {
    if (this.control.stopping) return 'signal';
    if (this.drifted || s.failed.some((f) => f.kind === 'drift')) return 'drift';
    if (s.sourceMissing.length) return 'source-missing';
    const kind = this.control.uploadsStopped?.kind;
    if (kind === 'auth' || kind === 'quota' || kind === 'budget') return kind;
    if (this.control.fatal) return 'internal';
    return s.failed.length > 0 ? 'documents-failed' : undefined;
  }

  /**
   * Record the end of the run; answers the final summary (also emitted as run:summary). `ended`:
   * the error that ended it (its reason is recorded: drift, auth, config ...).
   */
  async finish(status?: 'ok' | 'failed' | 'interrupted' | 'stopped', ended?: unknown): Promise<SyncSummary> {
    const s = this.summary();
    // What the run billed is what the state's ledger recorded for it: the one figure of record.
    const bill = await this.args.state.jobs.billedOfRun(this.runId);
    s.billedCharacters = bill.characters;
    s.textRequests = bill.textRequests;
    if (bill.possibly) s.possiblyBilled = bill.possibly;
    const leverage = leverageOfRows(
      (await this.args.state.segments?.leverageRows({ run: this.runId })) ?? [],
    );
    if (leverage) s.leverage = leverage;
    if (!this.finished) {
      this.finished = true;
      await this.counter.close();
      this.executor.decideAgain.close();
      const st =
        status ??
        (this.control.stopping
          ? 'interrupted'
          : s.failed.length > 0 || s.sourceMissing.length > 0 || this.control.fatal || this.drifted
            ? 'failed'
            : 'ok');
      const reason =
        st === 'ok' || st === 'stopped'
          ? undefined
          : ended !== undefined
            ? stopReasonOf(ended)
            : this.stopReason(s);
      await this.args.state.runs.finish(
        this.runId,
        { status: st, ...(reason ? { reason } : {}) },
        summaryCounts(s),
        s.billedCharacters,
      );
    }
    this.events.emit('run:summary', s);
    return s;
  }
}
