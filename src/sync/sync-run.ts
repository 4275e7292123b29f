import type { ServiceClient } from '../api/client.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { GlossaryStateStore, StyleStateStore, SyncState, RunStopReason } from '../state/types.js';
import {
  hasTerminology,
  reconcileTerminology,
  type TerminologyArgs,
  type TerminologyPlan,
} from '../styles/terminology.js';
import { createSyncEvents, type SyncEvents } from './events.js';
import { Planner, type PlanOutcome } from './plan/planner.js';
import type { PlanStyles } from './plan/settings.js';
import type { Observations, Plan } from './plan/types.js';
import { RunControl } from './run/control.js';
import type { DecideAgain } from './run/decide-again.js';
import { stopReasonOf } from './run-outcome.js';
import { Executor } from './run/executor.js';
import type { HeldPlan } from './run/held-plan.js';
import type { DocumentClient } from './run/job-driver.js';
import { MethodDriver } from './segments/segment-driver.js';
import { DownloadSlots, WorkerPlaces, type Places, type Slots } from './run/places.js';
import { AccountPlaces, AccountSlots } from './run/account-places.js';
import { RunReport } from './run/report.js';
import { RunLedger } from './run/run-ledger.js';
import { summaryCounts, type SyncSummary } from './summary.js';
import { pollTiming, type PollTiming } from './timing.js';
import { spoolDirOf, sweepSpool } from '../util/spool.js';
import { OutputGate } from '../qa/gate.js';
import { quarantineDirOf } from '../qa/quarantine.js';
import type { BudgetCaps } from '../billing/budget.js';
import { SpendGuard } from '../billing/spend-guard.js';
import { LazyCounter } from '../billing/characters.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How often one (file, target) may be planned again within a run before it is left for the next
 * one (a report each time its planned work found something changed: ./run/decide-again.ts). A
 * unit needs at most a few; more means the same change is found again and again.
 */
const MAX_DECIDE_AGAIN = 8;

const unitKey = (mapping: string, file: string, target: string) => `${mapping}\0${file}\0${target}`;

// The run sequence shared by `sync`, `plan` and `watch`: style lists reconciled, a plan made (recorded
// uploads resumed first, every mapping scanned, deletions last), the plan carried out, the run
// recorded. `plan` stops after planning; `watch` keeps one run open and feeds it file events.

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

/**
 * Reconcile the manifest's style lists and glossaries with the service (applied, or only compared)
 * and hand the planner what it needs: their ids, and the lists and glossary pairs whose change is
 * still pending.
 */
export async function reconcileForPlan(
  args: SyncRunArgs,
  planner: Planner,
  apply: boolean,
): Promise<TerminologyPlan | undefined> {
  const client = args.connection?.client as ServiceClient | undefined;
  if (!client) return undefined;
  // A run with no style lists or glossaries in the manifest leaves the service alone; deleting ones
  // removed from the manifest is left to `styles apply`, while a plan shows that too.
  const inManifest =
    Object.keys(args.loaded.styleLists).length + Object.keys(args.loaded.glossaries ?? {}).length > 0;
  if (apply ? !inManifest : !hasTerminology(args.loaded, args.state)) return undefined;
  const reconcile = () =>
    (args.reconcile ?? reconcileTerminology)({
      loaded: args.loaded,
      client,
      state: args.state,
      apply,
      // A run goes on without the targets of a drifted list; `plan` only shows the drift.
      blockDrifted: apply,
      logger: args.logger,
      ...(args.options?.drift ? { drift: args.options.drift } : {}),
    });
  // Workers sharing a state apply one at a time; the others then find nothing left to change.
  const shared = args.state.shared;
  const styles = apply && shared ? await shared.terminologyExclusive(reconcile) : await reconcile();
  await planner.useStyles({
    ...blockedByDrift(styles, args),
    styleIds: styles.styleIds,
    pendingChanges: apply ? [] : styles.changedKeys,
    glossaryIds: styles.glossaries.glossaryIds,
    pendingGlossaryPairs: apply
      ? []
      : Object.entries(styles.glossaries.changedPairs).flatMap(([k, pairs]) => pairs.map((p) => `${k}/${p}`)),
  });
  return styles;
}

/**
 * Style lists and glossaries that drifted under policy fail, each with why its targets get no
 * translation: logged and announced (notifications) once per run.
 */
function blockedByDrift(
  styles: TerminologyPlan,
  args: SyncRunArgs,
): Pick<PlanStyles, 'blocked' | 'blockedGlossaries'> {
  const what = [
    ...(styles.blocked ?? []).map((d) => ({
      kind: 'style list',
      key: d.key,
      detail: `version ${d.appliedVersion} → ${d.remoteVersion}, `,
    })),
    ...(styles.glossaries.blocked ?? []).map((d) => ({ kind: 'glossary', key: d.key, detail: '' })),
  ];
  if (!what.length) return {};
  const out: Pick<PlanStyles, 'blocked' | 'blockedGlossaries'> = {};
  for (const w of what) {
    const message = `${w.kind} ${w.key} was changed on the service since locsync applied it (${w.detail}drift policy fail): its targets are not translated; \`locsync plan\` shows the change, then sync with --drift overwrite or --drift adopt`;
    const map = w.kind === 'glossary' ? (out.blockedGlossaries ??= {}) : (out.blocked ??= {});
    map[w.key] = message;
    args.logger.error({ [w.kind === 'glossary' ? 'glossary' : 'style_list']: w.key }, message);
  }
  args.events?.emit('styles:drift', {
    lists: what.map((w) => w.key),
    messages: [...Object.values(out.blocked ?? {}), ...Object.values(out.blockedGlossaries ?? {})],
  });
  return out;
}

/**
 * Whether a style list or glossary drifted under policy fail: someone must decide about it, so the
 * run ends failed for drift even when no target that uses it had anything to translate.
 */
export function drifted(styles: TerminologyPlan | undefined): boolean {
  return !!(styles?.blocked?.length || styles?.glossaries.blocked?.length);
}

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
  for (const h of o.hashed)
    await state.files.put({
      mapping: h.mapping,
      rel_path: h.file,
      size: h.size,
      mtime_ms: h.mtimeMs,
      ino: h.ino,
      ctime_ms: h.ctimeMs,
      sha256: h.sha256,
    });
  if (o.digests?.length) await state.digests.put(o.digests);
  for (const v of o.verified) await state.files.verify(v.mapping, v.sig, v.files);
  for (const s of o.snapshots)
    await state.files.setSnapshot(
      s.mapping,
      {
        digest: s.digest,
        outputDirs: s.outputDirs,
        outputsDigest: s.outputsDigest,
        folders: new Map(s.folders),
      },
      s.files,
    );
}

/**
 * The run's limits on documents in flight: this process's own, or, when several workers share the
 * state, places of the account's limits that hold for all of them together (and the client takes
 * the account's request tokens and honours a slow-down seen by any worker).
 */
async function runLimits(
  args: SyncRunArgs,
  client: ServiceClient | DocumentClient,
): Promise<{ places: Places; slots: Slots }> {
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
    private readonly report: RunReport,
    private readonly control: RunControl,
    private readonly executor: Executor,
    private readonly counter: LazyCounter,
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
    const svc = args.loaded.manifest.service;
    const planner = prepared?.planner ?? (await openPlanner(args, events));
    const runId = await args.state.runs.start(opts.command ?? 'sync');
    const report = new RunReport(runId, events, args.logger);
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
    // Jobs of method: segments go the segment path (src/sync/segments), the others the document path.
    const driver = new MethodDriver({
      memory: args.state.segments,
      client,
      ledger,
      jobs: args.state.jobs,
      files: args.state.files,
      report,
      control,
      places,
      slots,
      timing: pollTiming(opts.poll),
      logger: args.logger,
      runId,
      maxAttempts: args.loaded.manifest.max_attempts,
      retryUnanswered: svc.retry_unanswered_uploads,
      base: args.loaded.dir,
      spoolDir,
      gate: new OutputGate(args.loaded, quarantineDirOf(args.loaded.statePath), args.state.qaResults),
      ...(guard ? { guard } : {}),
      ...(args.state.shared ? { shared: args.state.shared } : {}),
      ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
    });
    const executor = new Executor({
      loaded: args.loaded,
      state: args.state,
      index: planner.index,
      ledger,
      driver,
      report,
      control,
      places,
      slots,
      logger: args.logger,
      runId,
      ...(opts.overwriteEdits ? { overwriteEdits: true } : {}),
    });
    const run = new SyncRun(args, events, runId, planner, report, control, executor, counter);
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
    // A second look at what this run planned already (see RunReport.plannedAgain) counts nothing twice.
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

  /** How often each (file, target) was decided again since it last changed (MAX_DECIDE_AGAIN). */
  private readonly decidedAgain = new Map<string, number>();

  private async decideAgain({ ref, because }: DecideAgain): Promise<void> {
    // After a stop nothing new is taken up: the next run plans it again.
    if (this.control.stopping) return;
    // Each report is a change the unit's work found (its source replaced, its donor changed...): a
    // unit whose work keeps finding one is left for the next run, never planned again without end.
    const unit = unitKey(ref.mapping, ref.file, ref.target);
    const times = (this.decidedAgain.get(unit) ?? 0) + 1;
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
