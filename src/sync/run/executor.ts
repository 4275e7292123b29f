import path from 'node:path';
import type { UploadDocumentRequest } from '../../api/types.js';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { JobRecord } from '../../state/types.js';
import {
  contentKey,
  type OutputRef,
  type PlannedAction,
  type ResumeAction,
  type TranslateAction,
  unitOf,
} from '../plan/types.js';
import { sentWithoutAnswer } from './sent-without-answer.js';
import { Claims } from './claims.js';
import { DecideAgainQueue, type DecideAgainBecause } from './decide-again.js';
import type { ExecutorDeps } from './executor-deps.js';
import type { JobOutcome } from './job-ends.js';
import type { JobSource } from './job-lifecycle.js';
import { LostAnswerTurns } from './lost-answers.js';
import { ContentInFlight, OutputOrder, graceTimer, startAnywhere } from './output-order.js';
import { refOfJob } from './live-summary.js';
import { ReuseSteps } from './reuse-steps.js';
import { SourceRemovals } from './source-removals.js';

export type { ExecutorDeps } from './executor-deps.js';

// The executor carries out planned actions, and only those: work on one output runs in plan order,
// identical content is translated once (its duplicates wait and copy), recorded uploads are resumed
// by one driver each, deletions run after everything else. It does not plan: a (file, target) whose
// source or output changed under it is reported as data (./decide-again.ts), the run loop decides.
// Its parts: the order of the work (./output-order.ts), the claim of each unit (./claims.ts), the
// work that uploads nothing (./reuse-steps.ts), removed sources (./source-removals.ts).

export class Executor {
  /** Work on one output in plan order; every piece tracked for drain(). */
  private readonly order: OutputOrder;
  /** First translation (or resume) of each content key in flight: duplicates wait for it. */
  private readonly contentInFlight = new ContentInFlight();
  private readonly claims: Claims;
  /** Jobs this run drives or has resumed: never driven a second time. */
  private readonly taken: Set<number>;
  private readonly reuseSteps: ReuseSteps;
  private readonly removals: SourceRemovals;
  /** Uploads whose answer was lost, waiting for their turn to be uploaded again. */
  private readonly lostAnswers = new LostAnswerTurns();
  /** Tasks waiting on other work (an identical document's translation, a lost answer's turn). */
  private aside = 0;
  /** The units to decide again, for the run loop (it plans them and hands the actions back). */
  readonly decideAgain = new DecideAgainQueue();

  constructor(private readonly deps: ExecutorDeps) {
    this.order = new OutputOrder({
      failed: (output, err) => {
        // A write refused because another worker took the unit over (this one stalled past its
        // lease): the work is that worker's now, not an error of this run.
        if (err instanceof HeldByOtherWorkerError) {
          deps.logger.warn({ output, worker: err.holder }, err.message);
          return;
        }
        deps.logger.error({ output, err: (err as Error).message }, 'unexpected error');
        deps.control.fatal ??= err as Error;
      },
      settled: () => this.lostAnswersTurnIfIdle(),
    });
    this.claims = new Claims(deps);
    this.taken = this.claims.taken;
    this.reuseSteps = new ReuseSteps(deps, this.claims, this.contentInFlight, {
      again: (ref, because) => this.again(ref, because),
      waitAside: (p) => this.waitAside(p),
    });
    this.removals = new SourceRemovals(deps);
    deps.control.whenUploadsStop(() => {
      deps.slots.wakeAll();
      this.lostAnswers.wakeAll();
    });
  }

  /** Whether work on an output is scheduled or running. */
  busy(output: string): boolean {
    return this.order.busy(output);
  }

  idle(): boolean {
    return this.order.idle();
  }

  /** Donor outputs a copy found changed in this run: no reuse donors for the rest of it. */
  refusedDonor(output: string): boolean {
    return this.reuseSteps.refusedDonor(output);
  }

  /** Carry out actions in order (work is scheduled; drain() waits for it). */
  execute(actions: PlannedAction[]): void {
    for (const a of this.deps.state.shared ? startAnywhere(actions) : actions) this.take(a);
  }

  /**
   * Take one action for this run. The one place where a unit of work is claimed: with state shared
   * by several machines, a lease on the job goes here.
   */
  private take(a: PlannedAction): void {
    this.deps.report.events.emit('action', a);
    switch (a.kind) {
      case 'translate':
        return this.takeTranslate(a);
      case 'reuse':
        this.schedule(a.ref.output, () => this.reuseSteps.reuse(a));
        return;
      case 'resaved':
        this.schedule(a.ref.output, () => this.reuseSteps.resaved(a));
        return;
      case 'resume':
        return this.takeResume(a);
      case 'stale':
        this.deps.report.stale(a.ref);
        return;
      case 'skip':
        // A drifted style list is resolved by the operator; the next run then translates.
        this.deps.report.unitFailed(a.ref, a.reason, a.message, a.reason === 'drift');
        return;
      case 'delete':
      case 'forget':
        this.removals.add(a);
        return;
    }
  }

  /**
   * Report a (file, target) to decide again, and wait until the run loop took it up (the work on its
   * output, in which this runs, holds its place meanwhile).
   */
  private again(ref: OutputRef, because: DecideAgainBecause): Promise<void> {
    // After a stop nothing new is taken up: the next run plans it again.
    if (this.deps.control.stopping) return Promise.resolve();
    return this.decideAgain.put({ ref, because });
  }

  /** Run `fn` after the work already scheduled for the same output; tracked for drain(). */
  schedule(output: string, fn: () => Promise<unknown>): Promise<void> {
    return this.order.schedule(output, fn);
  }

  /** Outputs with a look after their current work already scheduled (after()). */
  private readonly lookingAfter = new Set<string>();

  /**
   * Decide a (file, target) again once the work on its output is done. One look is enough however
   * often a plan found the output busy meanwhile: it sees what all that work left.
   */
  after(ref: OutputRef): void {
    if (this.lookingAfter.has(ref.output)) return;
    this.lookingAfter.add(ref.output);
    void this.schedule(ref.output, () => {
      this.lookingAfter.delete(ref.output);
      return this.again(ref, 'work-on-output-done');
    });
  }

  private takeTranslate(a: TranslateAction): void {
    // A recorded job this run is driving right now is never started a second time.
    if (a.jobId !== undefined && this.taken.has(a.jobId)) return;
    const ck = contentKey(a.source.sha256, a.settings.fingerprint);
    const inflight = this.contentInFlight.of(ck);
    if (inflight) {
      // An identical document is being translated: wait for it, then decide again (a copy).
      void this.schedule(a.ref.output, async () => {
        await this.waitAside(inflight);
        await this.again(a.ref, 'identical-content-done');
      });
      return;
    }
    if (a.reason === 'stale') this.deps.ledger.count('stale-retranslated');
    this.contentInFlight.add(
      ck,
      this.schedule(a.ref.output, () => this.translate(a)),
    );
  }

  private async translate(a: TranslateAction): Promise<void> {
    // Work another worker holds takes no place of the account's (a place is the account's to share).
    const holder = await this.deps.state.shared?.holderOf(unitOf(a));
    if (holder)
      return this.deps.report.heldElsewhere({ jobId: 0, ...a.ref }, holder, this.deps.logger.child(a.ref));
    // A worker place first: the job row is written right before its upload, not when it is planned.
    const worker = await this.deps.places.take();
    try {
      if (this.deps.control.stopping) {
        // Stopped while it waited for a place: no row, no upload; the next run plans it again.
        this.deps.report.unitLeft({ jobId: a.jobId ?? 0, ...a.ref }, false);
        return;
      }
      const abs = path.resolve(this.deps.loaded.dir, a.source.path);
      const claim = await this.claims.translate(a, abs);
      if ('settled' in claim) return;
      if ('again' in claim) {
        worker();
        return this.again(a.ref, claim.again);
      }
      if ('holder' in claim) {
        worker();
        return this.deps.report.heldElsewhere(
          { jobId: claim.jobId, ...a.ref },
          claim.holder,
          this.deps.logger.child(a.ref),
        );
      }
      const { recorded } = claim;
      let { job } = claim;
      const src = { absPath: abs, request: a.settings.request };
      const unconfirmed =
        !!recorded && (await sentWithoutAnswer(recorded, a.settings.request, this.deps.state.segments));
      if (unconfirmed) {
        job = await this.deps.ledger.unconfirmedUpload(job);
        this.deps.report.unconfirmedUpload(a.ref);
      }
      this.deps.report.events.emit('job:queued', { jobId: job.id, ...a.ref, resumed: false });
      this.taken.add(job.id);
      try {
        const outcome = await this.untilAnswered(
          job,
          src,
          await this.deps.driver.drive(
            job,
            src,
            // A recorded document (a dead worker's) is collected as a resumed one.
            { resumed: recorded?.status === 'uploaded', holdsSlot: false, unconfirmed },
            worker,
          ),
        );
        if (outcome === 'done') this.deps.ledger.count('translated');
      } finally {
        this.taken.delete(job.id);
      }
    } finally {
      worker(); // harmless when the driver gave it back already
    }
  }

  private takeResume(a: ResumeAction): void {
    // Already driven by this run (its own upload, or resumed): the driver in flight finishes it.
    if (this.taken.has(a.jobId)) return;
    this.taken.add(a.jobId);
    // A document waiting on the service holds a download slot from now on. With the account's places
    // shared by several workers (taken in no set order), only once it has its worker place: places
    // first, then slots, as uploads take them; a resumed document holding a slot while it waits for a
    // place could wait forever on uploads that hold every place and wait for slots.
    const shared = this.deps.state.shared !== undefined;
    if (!shared) this.deps.slots.hold();
    this.deps.report.events.emit('job:queued', {
      jobId: a.jobId,
      ...a.ref,
      documentId: a.documentId,
      resumed: true,
    });
    const p = this.schedule(a.ref.output, async () => {
      // The worker place is asked for before anything is awaited: resumed documents hold download
      // slots, so they must get places before the uploads planned after them (which wait for slots).
      const worker = await this.deps.places.take();
      if (shared) this.deps.slots.hold();
      const job = await this.claims.resume(a);
      if (!job) {
        worker();
        this.deps.slots.release();
        return;
      }
      const src = this.sourceOfJob(job);
      const outcome = await this.untilAnswered(
        job,
        src,
        await this.deps.driver.drive(job, src, { resumed: true, holdsSlot: true }, worker),
      );
      if (outcome === 'done') this.deps.ledger.count('resumed');
    });
    const open = this.deps.index.openOf(a.ref.output);
    if (open?.id === a.jobId) this.contentInFlight.add(contentKey(open.sha256, open.fingerprint), p);
  }

  /**
   * A job whose upload answer was lost (`deferred`) is uploaded again at its turn: once the rest of
   * the run's work is done, or after a pause (./lost-answers.ts). It stays in its output's place
   * meanwhile (identical documents and later work on the output wait for it). Reported as possibly
   * billed twice; when uploads have stopped (the quota, a budget, the key) before it is sent again
   * (the driver hands a repeat that has not left back as `deferred`) it fails as maybe-accepted,
   * for the next run; a stop by signal leaves it to the next run.
   */
  private async untilAnswered(job: JobRecord, src: JobSource, outcome: JobOutcome): Promise<JobOutcome> {
    while (outcome === 'deferred') {
      if (!this.deps.control.uploadsStopped) await this.waitAside(this.lostAnswers.turn());
      const recorded = (await this.deps.state.jobs.get(job.id)) ?? job;
      const stopped = this.deps.control.uploadsStopped;
      // Stopped by a signal: left for the next run (its row says maybe-accepted), not failed.
      if (stopped && this.deps.control.stopping) {
        this.deps.report.unitLeft(refOfJob(recorded), false);
        return 'left';
      }
      if (stopped) {
        this.deps.report.jobFailed(
          recorded,
          'maybe-accepted',
          `the upload failed after the document was sent: the service may have accepted (and billed) it; not uploaded again in this run (uploads stopped: ${stopped.reason})`,
          true,
        );
        return 'failed';
      }
      outcome = await this.deps.driver.drive(recorded, src, {
        resumed: false,
        holdsSlot: false,
        lostAnswer: true,
      });
    }
    // Its source was replaced before the upload (the job ended unsent): its new content is decided.
    if (outcome === 'superseded')
      await this.again(
        { mapping: job.mapping, file: job.rel_path, target: job.target_lang, output: job.output_path },
        'source-replaced',
      );
    return outcome;
  }

  /** Wait for other work; while every task left waits so, lost answers take their turn. */
  private async waitAside(p: Promise<void>): Promise<void> {
    this.aside++;
    this.lostAnswersTurnIfIdle();
    try {
      await p;
    } finally {
      this.aside--;
    }
  }

  private lostAnswersTurnIfIdle(): void {
    if (this.lostAnswers.size > 0 && this.order.size <= this.aside) this.lostAnswers.wakeAll();
  }

  /** What a recorded job needs to be uploaded again (a lost download): its source and request. */
  private sourceOfJob(job: { mapping: string; rel_path: string; request: string | null }): JobSource {
    const m = this.deps.loaded.manifest.mappings.find((x) => x.name === job.mapping);
    return {
      absPath: m ? path.join(path.resolve(this.deps.loaded.dir, m.source), job.rel_path) : undefined,
      request: job.request ? (JSON.parse(job.request) as UploadDocumentRequest) : undefined,
    };
  }

  /** Wait until every scheduled piece of work has finished (or failed), then run the deletions. */
  async drain(): Promise<void> {
    await this.order.drain();
    await this.removals.run();
    await this.order.drain();
  }

  /**
   * Stop taking new uploads; let work in flight finish until the deadline, then stop polling and
   * start no download (the recorded id+key let the next run collect those documents). An upload
   * already sent is never cut: its answer is awaited (bounded by the client's timeouts) and its id
   * recorded, or the next run would upload, and the service bill, the same document again.
   * Resolves as soon as nothing is left to await (the grace's timer is cancelled then).
   */
  async stop(deadlineMs: number, interrupted = true): Promise<void> {
    if (interrupted) {
      const first = !this.deps.control.stopping;
      this.deps.control.stopping = true;
      this.deps.control.stopUploads(
        'the run was interrupted; what is left is resumed by the next run',
        'stopped',
      );
      if (first && !this.deps.control.graceOver.signal.aborted)
        this.deps.report.events.emit('run:stopping', { graceEndsAt: Date.now() + deadlineMs });
    } else this.deps.control.stopUploads('the run ended on an error; the next run resumes', 'transient');
    const all = () => this.order.drain();
    const grace = graceTimer(deadlineMs, this.deps.control.graceOver.signal);
    const r = await Promise.race([all().then(() => 'done' as const), grace.over]);
    grace.cancel();
    if (r === 'over') {
      this.deps.control.pollAbort.abort();
      if (this.order.size)
        this.deps.logger.info(
          'shutdown grace over: status checks stop; uploads already sent are awaited so that their ids are recorded',
        );
    }
    await all();
  }

  /**
   * Stop waiting now (a second Ctrl-C): the grace ends at once. Documents at the service stay
   * recorded with their id and key (the next run collects them, not paid again); an upload already
   * sent is still awaited, because cutting it is what could bill it twice.
   */
  stopWaiting(): void {
    if (this.deps.control.graceOver.signal.aborted) return;
    this.deps.control.graceOver.abort();
    this.deps.report.events.emit('run:stop-waiting', {});
  }
}
