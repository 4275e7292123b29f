import fs from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import type { UploadDocumentRequest } from '../../api/types.js';
import type { Logger } from '../../log/logger.js';
import type { LoadedManifest } from '../../manifest/types.js';
import { DoneElsewhereError, HeldByOtherWorkerError, RecordedJobError } from '../../state/held.js';
import type { JobRecord, NewJob, SyncState } from '../../state/types.js';
import { CopyMismatchError, copyFileAtomic } from '../../util/part-file.js';
import { Placement, recordOf, writtenOf } from './edited-output.js';
import { keepFor } from './replaced-outputs.js';
import type { OutputIndex } from '../plan/output-index.js';
import {
  contentKey,
  type DeleteAction,
  type ForgetAction,
  type OutputRef,
  type PlannedAction,
  type ResavedAction,
  type ResumeAction,
  type ReuseAction,
  type TranslateAction,
  unitOf,
} from '../plan/types.js';
import type { RunControl } from './control.js';
import { deleteOutput } from './delete-output.js';
import { DecideAgainQueue, type DecideAgainBecause } from './decide-again.js';
import { answerHidden } from './answer-hidden.js';
import type { JobDriver, JobOutcome, JobSource } from './job-driver.js';
import { LostAnswerTurns } from './lost-answers.js';
import type { Places, Slots } from './places.js';
import { refOfJob, type RunReport } from './report.js';
import type { RunLedger } from './run-ledger.js';
import { sourceHolds } from './source-check.js';

// The executor carries out planned actions, and only those: work on one output runs in plan order,
// identical content is translated once (its duplicates wait and copy), recorded uploads are resumed
// by one driver each, deletions run after everything else. It does not plan: a (file, target) whose
// source or output changed under it is reported as data (./decide-again.ts), the run loop decides.

export interface ExecutorDeps {
  loaded: LoadedManifest;
  state: SyncState;
  index: OutputIndex;
  /** The one writer of job rows (and of the index and counts that follow from them). */
  ledger: RunLedger;
  driver: JobDriver;
  report: RunReport;
  control: RunControl;
  places: Places;
  slots: Slots;
  logger: Logger;
  runId: number;
  /** sync --overwrite-edits: outputs edited by people are replaced (./edited-output.ts). */
  overwriteEdits?: boolean;
}

export class Executor {
  /** Work scheduled per output path (later work on the same output waits). */
  private readonly outputs = new Map<string, Promise<void>>();
  /** First translation (or resume) of each content key in flight: duplicates wait for it. */
  private readonly contentInFlight = new Map<string, Promise<void>>();
  /** Jobs this run drives or has resumed: never driven a second time. */
  private readonly taken = new Set<number>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly removals: Array<DeleteAction | ForgetAction> = [];
  private readonly copies = new PQueue({ concurrency: 4 });
  /** Uploads whose answer was lost, waiting for their turn to be uploaded again. */
  private readonly lostAnswers = new LostAnswerTurns();
  /** Tasks waiting on other work (an identical document's translation, a lost answer's turn). */
  private aside = 0;
  /** The units to decide again, for the run loop (it plans them and hands the actions back). */
  readonly decideAgain = new DecideAgainQueue();

  constructor(private readonly d: ExecutorDeps) {
    d.control.whenUploadsStop(() => {
      d.slots.wakeAll();
      this.lostAnswers.wakeAll();
    });
  }

  /** Whether work on an output is scheduled or running. */
  busy(output: string): boolean {
    return this.outputs.has(output);
  }

  idle(): boolean {
    return this.outputs.size === 0;
  }

  /** Donor outputs a copy found changed in this run: no reuse donors for the rest of it. */
  private readonly refusedDonors = new Set<string>();

  refusedDonor(output: string): boolean {
    return this.refusedDonors.has(output);
  }

  /** Carry out actions in order (work is scheduled; drain() waits for it). */
  execute(actions: PlannedAction[]): void {
    for (const a of this.d.state.shared ? startAnywhere(actions) : actions) this.take(a);
  }

  /**
   * Take one action for this run. The one place where a unit of work is claimed: with state shared
   * by several machines, a lease on the job goes here.
   */
  private take(a: PlannedAction): void {
    this.d.report.events.emit('action', a);
    switch (a.kind) {
      case 'translate':
        return this.takeTranslate(a);
      case 'reuse':
        this.schedule(a.ref.output, () => this.reuse(a));
        return;
      case 'resaved':
        this.schedule(a.ref.output, () => this.resaved(a));
        return;
      case 'resume':
        return this.takeResume(a);
      case 'stale':
        this.d.report.stale(a.ref);
        return;
      case 'skip':
        // A drifted style list is resolved by the operator; the next run then translates.
        this.d.report.unitFailed(a.ref, a.reason, a.message, a.reason === 'drift');
        return;
      case 'delete':
      case 'forget':
        this.removals.push(a);
        return;
    }
  }

  /**
   * Report a (file, target) to decide again, and wait until the run loop took it up (the work on its
   * output, in which this runs, holds its place meanwhile).
   */
  private again(ref: OutputRef, because: DecideAgainBecause): Promise<void> {
    // After a stop nothing new is taken up: the next run plans it again.
    if (this.d.control.stopping) return Promise.resolve();
    return this.decideAgain.put({ ref, because });
  }

  /** Run `fn` after the work already scheduled for the same output; tracked for drain(). */
  schedule(output: string, fn: () => Promise<unknown>): Promise<void> {
    const before = this.outputs.get(output) ?? Promise.resolve();
    const p = before
      .then(fn)
      .then(() => undefined)
      .catch((err: unknown) => {
        // A write refused because another worker took the unit over (this one stalled past its
        // lease): the work is that worker's now, not an error of this run.
        if (err instanceof HeldByOtherWorkerError) {
          this.d.logger.warn({ output, worker: err.holder }, err.message);
          return;
        }
        this.d.logger.error({ output, err: (err as Error).message }, 'unexpected error');
        this.d.control.fatal ??= err as Error;
      });
    this.outputs.set(output, p);
    this.tasks.add(p);
    void p.finally(() => {
      this.tasks.delete(p);
      if (this.outputs.get(output) === p) this.outputs.delete(output);
      this.lostAnswersTurnIfIdle();
    });
    return p;
  }

  /** Decide a (file, target) again once the work on its output is done. */
  after(ref: OutputRef): void {
    void this.schedule(ref.output, () => this.again(ref, 'work-on-output-done'));
  }

  private inFlight(content: string, p: Promise<void>): void {
    this.contentInFlight.set(content, p);
    void p.finally(() => {
      if (this.contentInFlight.get(content) === p) this.contentInFlight.delete(content);
    });
  }

  private takeTranslate(a: TranslateAction): void {
    // A recorded job this run is driving right now is never started a second time.
    if (a.jobId !== undefined && this.taken.has(a.jobId)) return;
    const ck = contentKey(a.source.sha256, a.settings.fingerprint);
    const inflight = this.contentInFlight.get(ck);
    if (inflight) {
      // An identical document is being translated: wait for it, then decide again (a copy).
      void this.schedule(a.ref.output, async () => {
        await this.waitAside(inflight);
        await this.again(a.ref, 'identical-content-done');
      });
      return;
    }
    if (a.reason === 'stale') this.d.ledger.count('stale-retranslated');
    this.inFlight(
      ck,
      this.schedule(a.ref.output, () => this.translate(a)),
    );
  }

  private async translate(a: TranslateAction): Promise<void> {
    // Work another worker holds takes no place of the account's (a place is the account's to share).
    const holder = await this.d.state.shared?.holderOf(unitOf(a));
    if (holder)
      return this.d.report.heldElsewhere({ jobId: 0, ...a.ref }, holder, this.d.logger.child(a.ref));
    // A worker place first: the job row is written right before its upload, not when it is planned.
    const worker = await this.d.places.take();
    try {
      if (this.d.control.stopping) {
        // Stopped while it waited for a place: no row, no upload; the next run plans it again.
        this.d.report.unitLeft({ jobId: a.jobId ?? 0, ...a.ref }, false);
        return;
      }
      const abs = path.resolve(this.d.loaded.dir, a.source.path);
      let recorded = a.jobId !== undefined ? await this.d.state.jobs.get(a.jobId) : undefined;
      const replaced = !(await sourceHolds(
        this.d.state.files,
        a.ref.mapping,
        a.ref.file,
        a.source.sha256,
        abs,
      ));
      if (replaced || (a.jobId !== undefined && (!recorded || recorded.status === 'done'))) {
        // Replaced since it was planned (or its recorded job moved on): no row for what is not there.
        worker();
        await this.again(a.ref, replaced ? 'source-replaced' : 'job-moved-on');
        return;
      }
      if (recorded && this.d.state.shared) {
        // Several workers: its unit is claimed now that it starts, not when it was planned.
        const took = await this.d.state.shared.take(recorded);
        if (!('job' in took)) {
          worker();
          if ('holder' in took)
            return this.d.report.heldElsewhere(
              { jobId: recorded.id, ...a.ref },
              took.holder,
              this.d.logger.child(a.ref),
            );
          return this.again(a.ref, 'job-moved-on');
        }
        recorded = took.job;
      }
      const request = JSON.stringify(a.settings.request);
      let job: JobRecord;
      try {
        job = recorded
          ? await this.d.ledger.takenUp(recorded, this.d.runId, request)
          : await this.d.ledger.created(this.newJob(a, request));
      } catch (err) {
        if (!(err instanceof RecordedJobError)) {
          if (this.leftToOtherWorker(err, a.ref)) return;
          throw err;
        }
        // The unit's job was recorded by a worker whose lease ran out: carried on from its record.
        if (this.taken.has(err.job.id)) return;
        recorded = err.job;
        job = await this.d.ledger.takenUp(recorded, this.d.runId, request);
      }
      const src = { absPath: abs, request: a.settings.request };
      const unconfirmed =
        !!recorded && (await answerHidden(recorded, a.settings.request, this.d.state.segments));
      if (unconfirmed) {
        job = await this.d.ledger.unconfirmedUpload(job);
        this.d.report.unconfirmedUpload(a.ref);
      }
      this.d.report.events.emit('job:queued', { jobId: job.id, ...a.ref, resumed: false });
      this.taken.add(job.id);
      try {
        const outcome = await this.untilAnswered(
          job,
          src,
          await this.d.driver.drive(
            job,
            src,
            // A recorded document (a dead worker's) is collected as a resumed one.
            { resumed: recorded?.status === 'uploaded', holdsSlot: false, unconfirmed },
            worker,
          ),
        );
        if (outcome === 'done') this.d.ledger.count('translated');
      } finally {
        this.taken.delete(job.id);
      }
    } finally {
      worker(); // harmless when the driver gave it back already
    }
  }

  /**
   * Several workers share the state: a unit another worker holds is left to it, one it finished since
   * this worker planned is known done. Answers whether `err` was one of those.
   */
  private leftToOtherWorker(err: unknown, ref: OutputRef): boolean {
    const log = () => this.d.logger.child(ref);
    if (err instanceof DoneElsewhereError) {
      this.d.ledger.doneElsewhere(err.done);
      this.d.report.heldElsewhere({ jobId: err.done.id, ...ref }, 'done', log());
      return true;
    }
    if (err instanceof HeldByOtherWorkerError) {
      this.d.report.heldElsewhere({ jobId: 0, ...ref }, err.holder, log());
      return true;
    }
    return false;
  }

  private newJob(a: TranslateAction | ReuseAction | ResavedAction, request: string): NewJob {
    return {
      mapping: a.ref.mapping,
      rel_path: a.ref.file,
      sha256: a.source.sha256,
      target_lang: a.ref.target,
      fingerprint: a.settings.fingerprint,
      base_fingerprint: a.settings.baseFingerprint,
      output_path: a.ref.output,
      run_id: this.d.runId,
      request,
      // What the plan knew of the output: a done job other than this one was done elsewhere.
      ...(a.kind === 'translate' && a.doneId !== undefined ? { seen_done: a.doneId } : {}),
    };
  }

  private takeResume(a: ResumeAction): void {
    // Already driven by this run (its own upload, or resumed): the driver in flight finishes it.
    if (this.taken.has(a.jobId)) return;
    this.taken.add(a.jobId);
    // A document waiting on the service holds a download slot from now on. With the account's places
    // shared by several workers (taken in no set order), only once it has its worker place: places
    // first, then slots, as uploads take them; a resumed document holding a slot while it waits for a
    // place could wait forever on uploads that hold every place and wait for slots.
    const shared = this.d.state.shared !== undefined;
    if (!shared) this.d.slots.hold();
    this.d.report.events.emit('job:queued', {
      jobId: a.jobId,
      ...a.ref,
      documentId: a.documentId,
      resumed: true,
    });
    const p = this.schedule(a.ref.output, async () => {
      // The worker place is asked for before anything is awaited: resumed documents hold download
      // slots, so they must get places before the uploads planned after them (which wait for slots).
      const worker = await this.d.places.take();
      if (shared) this.d.slots.hold();
      let job = await this.d.state.jobs.get(a.jobId);
      if (job && this.d.state.shared) {
        // Several workers: its unit is claimed now that it starts (a takeover when a dead one held it).
        const took = await this.d.state.shared.take(job);
        if ('holder' in took)
          this.d.report.heldElsewhere({ jobId: a.jobId, ...a.ref }, took.holder, this.d.logger.child(a.ref));
        job = 'job' in took ? took.job : undefined;
      }
      if (!job || job.status !== 'uploaded' || !job.document_id || !job.document_key) {
        worker();
        this.d.slots.release();
        return;
      }
      // Taken up by this run: what the service bills it from now on is this run's (src/state/billed.ts).
      if (job.run_id !== this.d.runId && job.request !== null)
        job = await this.d.ledger.takenUp(job, this.d.runId, job.request);
      const src = this.sourceOfJob(job);
      const outcome = await this.untilAnswered(
        job,
        src,
        await this.d.driver.drive(job, src, { resumed: true, holdsSlot: true }, worker),
      );
      if (outcome === 'done') this.d.ledger.count('resumed');
    });
    const open = this.d.index.openOf(a.ref.output);
    if (open?.id === a.jobId) this.inFlight(contentKey(open.sha256, open.fingerprint), p);
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
      if (!this.d.control.uploadsStopped) await this.waitAside(this.lostAnswers.turn());
      const recorded = (await this.d.state.jobs.get(job.id)) ?? job;
      const stopped = this.d.control.uploadsStopped;
      // Stopped by a signal: left for the next run (its row says maybe-accepted), not failed.
      if (stopped && this.d.control.stopping) {
        this.d.report.unitLeft(refOfJob(recorded), false);
        return 'left';
      }
      if (stopped) {
        this.d.report.jobFailed(
          recorded,
          'maybe-accepted',
          `the upload failed after the document was sent: the service may have accepted (and billed) it; not uploaded again in this run (uploads stopped: ${stopped.reason})`,
          true,
        );
        return 'failed';
      }
      outcome = await this.d.driver.drive(recorded, src, {
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
    if (this.lostAnswers.size > 0 && this.tasks.size <= this.aside) this.lostAnswers.wakeAll();
  }

  /** What a recorded job needs to be uploaded again (a lost download): its source and request. */
  private sourceOfJob(job: { mapping: string; rel_path: string; request: string | null }): JobSource {
    const m = this.d.loaded.manifest.mappings.find((x) => x.name === job.mapping);
    return {
      absPath: m ? path.join(path.resolve(this.d.loaded.dir, m.source), job.rel_path) : undefined,
      request: job.request ? (JSON.parse(job.request) as UploadDocumentRequest) : undefined,
    };
  }

  private async reuse(a: ReuseAction): Promise<void> {
    let fromJobId = a.fromJobId ?? 0;
    if (a.donor === 'planned') {
      // The donor is made by an earlier action of this plan: wait for it, then copy what it holds.
      const inflight = this.contentInFlight.get(contentKey(a.source.sha256, a.settings.fingerprint));
      if (inflight) await this.waitAside(inflight);
      const done = await this.d.index.doneOf(a.from);
      const holds =
        done?.sha256 === a.source.sha256 &&
        done.fingerprint === a.settings.fingerprint &&
        fs.existsSync(path.resolve(this.d.loaded.dir, a.from));
      if (!holds) return this.again(a.ref, 'donor-failed');
      fromJobId = done.id;
    }
    await this.copies.add(() => this.copy(a, fromJobId));
  }

  private async copy(a: ReuseAction, fromJobId: number): Promise<void> {
    try {
      const outputAbs = path.resolve(this.d.loaded.dir, a.ref.output);
      const previous = await this.d.state.jobs.latestDoneOf(a.ref.output);
      const placement = new Placement(
        outputAbs,
        previous && (await this.d.state.jobs.get(previous.id)),
        this.d.overwriteEdits ?? false,
        keepFor(
          { base: this.d.loaded.dir, stateFolder: path.dirname(this.d.loaded.statePath) },
          this.d.runId,
          {
            outputRel: a.ref.output,
            target: a.ref.target,
            sourceAbs: path.resolve(this.d.loaded.dir, a.source.path),
          },
        ),
      );
      // A donor output is copied only as it was written (else: planned again, uploaded): another
      // pipeline's may have been edited, and one of this run's may already hold a new translation
      // (two sources swapped: each output is the other's donor).
      const written =
        a.across?.outputSha256 ?? (await this.d.state.jobs.get(fromJobId))?.output_sha256 ?? undefined;
      const bytes = await copyFileAtomic(
        path.resolve(this.d.loaded.dir, a.from),
        outputAbs,
        placement.placeAt,
        written,
      );
      const job = await this.d.ledger.reused(
        this.newJob(a, JSON.stringify(a.settings.request)),
        fromJobId,
        await writtenOf(placement.placed),
      );
      if (a.across)
        await this.d.state.acrossPipelines?.copiedFrom(job.id, {
          pipeline: a.across.pipeline,
          jobId: fromJobId,
        });
      if (placement.beside) this.d.report.editedKept(job, placement.placed, this.d.logger);
      this.d.report.reused(
        job,
        fromJobId,
        a.across ? `pipeline ${a.across.pipeline}: ${a.from}` : a.from,
        bytes,
      );
    } catch (err) {
      if (this.leftToOtherWorker(err, a.ref)) return;
      if (err instanceof CopyMismatchError) {
        this.refusedDonors.add(a.from);
        return this.again(a.ref, 'donor-changed');
      }
      this.d.report.unitFailed(a.ref, 'output', `copying ${a.from}: ${(err as Error).message}`, true);
    }
  }

  /**
   * A source saved again without a change of content: its output stays as it is, and a done job
   * records the new bytes against the translation it holds (so the next scan finds it up to date).
   */
  private async resaved(a: ResavedAction): Promise<void> {
    // Only while the output still holds the translation this was planned against.
    if ((await this.d.index.doneOf(a.ref.output))?.id !== a.doneId)
      return this.again(a.ref, 'output-moved-on');
    try {
      const job = await this.d.ledger.reused(
        this.newJob(a, JSON.stringify(a.settings.request)),
        a.doneId,
        // The output is untouched: the record of what was written there carries over.
        recordOf(await this.d.state.jobs.get(a.doneId)),
      );
      this.d.report.resaved(job);
    } catch (err) {
      if (this.leftToOtherWorker(err, a.ref)) return;
      throw err;
    }
  }

  /** Deletions of removed sources, after every other piece of work. */
  private async runRemovals(): Promise<void> {
    // Interrupted: nothing more is done; the next run finds the removed sources again.
    if (this.d.control.stopping) this.removals.length = 0;
    const deleted = new Map<string, string[]>();
    for (const a of this.removals.splice(0)) {
      if (a.kind === 'delete') {
        // Only while the output still holds the translation it was planned for.
        if ((await this.d.index.doneOf(a.ref.output))?.id !== a.jobId) continue;
        const abs = path.resolve(this.d.loaded.dir, a.ref.output);
        if (await deleteOutput(abs, path.resolve(this.d.loaded.dir, a.root))) {
          const k = `${a.ref.mapping}\0${a.ref.file}`;
          deleted.set(k, [...(deleted.get(k) ?? []), a.ref.output]);
          this.d.report.outputDeleted(a.ref);
        }
        continue;
      }
      await this.d.state.files.remove(a.mapping, a.file);
      this.d.report.sourceRemoved(a.mapping, a.file, deleted.get(`${a.mapping}\0${a.file}`) ?? []);
    }
  }

  /** Wait until every scheduled piece of work has finished (or failed), then run the deletions. */
  async drain(): Promise<void> {
    await this.drainTasks();
    await this.runRemovals();
    await this.drainTasks();
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
      const first = !this.d.control.stopping;
      this.d.control.stopping = true;
      this.d.control.stopUploads(
        'the run was interrupted; what is left is resumed by the next run',
        'stopped',
      );
      if (first && !this.d.control.graceOver.signal.aborted)
        this.d.report.events.emit('run:stopping', { graceEndsAt: Date.now() + deadlineMs });
    } else this.d.control.stopUploads('the run ended on an error; the next run resumes', 'transient');
    const all = () => this.drainTasks();
    const grace = graceTimer(deadlineMs, this.d.control.graceOver.signal);
    const r = await Promise.race([all().then(() => 'done' as const), grace.over]);
    grace.cancel();
    if (r === 'over') {
      this.d.control.pollAbort.abort();
      if (this.tasks.size)
        this.d.logger.info(
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
    if (this.d.control.graceOver.signal.aborted) return;
    this.d.control.graceOver.abort();
    this.d.report.events.emit('run:stop-waiting', {});
  }

  /** Every task scheduled, also those scheduled while waiting. */
  private async drainTasks(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }
}

/**
 * Several workers plan the same work in the same order: each starts its uploads at a place of its
 * own in the list (a random rotation of the translations; everything else keeps its position), so
 * that they do not all ask for the same documents at once and turn each other away.
 */
function startAnywhere(actions: PlannedAction[]): PlannedAction[] {
  const at = actions.flatMap((a, i) => (a.kind === 'translate' ? [i] : []));
  if (at.length < 2) return actions;
  const shift = Math.floor(Math.random() * at.length);
  const out = [...actions];
  at.forEach((pos, k) => (out[pos] = actions[at[(k + shift) % at.length]!]!));
  return out;
}

/** Resolves 'over' after `ms` or when `ended` aborts; cancel() clears the timer (no wait is left behind). */
function graceTimer(ms: number, ended: AbortSignal): { over: Promise<'over'>; cancel(): void } {
  let cancel = () => {};
  const over = new Promise<'over'>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      ended.removeEventListener('abort', end);
      resolve('over');
    };
    const timer = setTimeout(end, ms);
    if (ended.aborted) end();
    else ended.addEventListener('abort', end);
    cancel = () => {
      clearTimeout(timer);
      ended.removeEventListener('abort', end);
    };
  });
  return { over, cancel };
}
