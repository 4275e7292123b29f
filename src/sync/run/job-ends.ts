import type { SpendGuard } from '../../billing/spend-guard.js';
import type { Logger } from '../../log/logger.js';
import type { HeldByOtherWorkerError } from '../../state/held.js';
import { neverSent } from '../../state/transitions.js';
import type { JobFailure, JobRecord, JobSincePlan, SharedWork } from '../../state/types.js';
import type { FailureKind } from '../events.js';
import type { BilledAttempt, BilledJob } from './billed-call.js';
import type { RunControl } from './control.js';
import { endedWords, reportEndedElsewhere } from './ended-elsewhere.js';
import type { DownloadSlotPool } from './places.js';
import { refOfJob, type LiveSummary } from './live-summary.js';
import type { RunLedger } from './run-ledger.js';

// How a job's drive ends, the same for both methods (the document path's driver and the segment
// path's job): a failure recorded and reported, the job left to the next run, the source replaced
// before anything was sent, a lost answer deferred to its turn in this run, uploads stopped, the
// job taken over by another worker. Each method says in its own words what it was doing, and how a
// job that ends unfinished counts what its calls may have billed (SpendOnFailure).

/** `deferred`: a billed call's answer was lost; the executor sends the job again at its turn. */
export type JobOutcome = 'done' | 'failed' | 'superseded' | 'left' | 'deferred';

/** One drive of a job: its record and what this run holds for it. */
export interface DriveState extends BilledJob {
  /** A download slot (the document path: from the upload until the download). */
  holdsSlot: boolean;
  /** Give back the worker place (undefined: not held by the drive). */
  worker: (() => void) | undefined;
  /** The attempt under way (its billed calls), if one began in this drive. */
  attempt?: BilledAttempt;
}

/** How a failure is recorded on the job (JobFailure); `unsent` follows from the attempt. */
export type FailureRecord = Pick<JobFailure, 'keepDocument' | 'countsAttempt' | 'retriedKept' | 'keepClaim'>;

/** A failure recorded and reported: whether a later run tries again. */
export type ReportedFailure = Omit<FailureRecord, 'keepClaim'> & { willRetry: boolean };

/** How each method speaks of an ending. */
export interface EndWords {
  /** The source changed before anything was sent. */
  superseded: string;
  /** The run was stopped after a call of the attempt had left (the attempt given back). */
  stoppedAfterSending: string;
  /** Logged when a lost answer defers the job to its turn in this run. */
  deferred: string;
}

/**
 * What a job that ends unfinished has spent, for the budget caps: the method knows whether the
 * state records its calls' characters (text requests) or only an estimate was reserved (uploads).
 */
export type SpendOnFailure = (guard: SpendGuard, dr: DriveState, kind: FailureKind) => Promise<void> | void;

export interface JobEndsDeps {
  ledger: RunLedger;
  /** Several workers share the state (an output another one ended gives its unit back). */
  shared?: SharedWork;
  report: LiveSummary;
  control: RunControl;
  slots: DownloadSlotPool;
  logger: Logger;
  maxAttempts: number;
  guard?: SpendGuard;
}

export class JobEnds<D extends DriveState = DriveState> {
  constructor(
    private readonly deps: JobEndsDeps,
    private readonly words: EndWords,
    private readonly spend: SpendOnFailure,
  ) {}

  log(job: JobRecord): Logger {
    return this.deps.logger.child({
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      document_id: job.document_id ?? undefined,
    });
  }

  releaseSlot(dr: D): void {
    if (dr.holdsSlot) this.deps.slots.release();
    dr.holdsSlot = false;
  }

  releaseWorker(dr: D): void {
    dr.worker?.();
    dr.worker = undefined;
  }

  async fail(dr: D, kind: FailureKind, error: string, o: ReportedFailure): Promise<'failed'> {
    await this.recordFailure(dr, kind, error, o);
    // A counted attempt that reached max_attempts is the last: the next run gives the job up.
    const willRetry = o.willRetry && (!o.countsAttempt || dr.job.attempts < this.deps.maxAttempts);
    this.deps.report.jobFailed(dr.job, kind, error, willRetry);
    return 'failed';
  }

  /** The failure recorded (the job row, the budget, the output index); reported by the caller. */
  async recordFailure(dr: D, kind: FailureKind, error: string, o: FailureRecord): Promise<void> {
    this.releaseSlot(dr);
    if (this.deps.guard) await this.spend(this.deps.guard, dr, kind);
    dr.job = await this.deps.ledger.failed(dr.job, {
      kind,
      error,
      keepDocument: o.keepDocument,
      countsAttempt: o.countsAttempt,
      retriedKept: o.retriedKept ?? false,
      ...(o.keepClaim ? { keepClaim: true } : {}),
      // No call of this drive left: no attempt was counted, so none is given back.
      ...(dr.attempt?.started ? {} : { unsent: true }),
      // A lost download's re-upload (marked until it is answered) counted no attempt as it left.
      ...(dr.reupload === 'lost-download' ? { reupload: 'lost-download' as const } : {}),
    });
  }

  /** The run was stopped: nothing recorded, the row stays as it is and the next run resumes it. */
  leave(dr: D): 'left' {
    this.releaseSlot(dr);
    this.deps.report.unitLeft(refOfJob(dr.job), !!dr.job.document_id && dr.job.status === 'uploaded');
    return 'left';
  }

  /**
   * A write of this job was refused: this worker stalled past its lease (a blocked event loop, a
   * paused machine) and another worker took the unit over, so the job is that worker's now and this
   * one stops driving it: not a failure, nothing more written (that worker's record is the job's).
   */
  takenOver(dr: D, err: HeldByOtherWorkerError): 'left' {
    this.deps.guard?.release(dr.job.id);
    this.releaseSlot(dr);
    this.deps.report.heldElsewhere(refOfJob(dr.job), err.holder, this.log(dr.job));
    return 'left';
  }

  /**
   * Another worker failed, delivered or took this output since this run planned it (the check of
   * ./billed-call.ts before the call left): nothing was sent, and this run leaves the output to what
   * that worker recorded (the next run decides it). This job's row goes if it never led to a call;
   * one with earlier attempts stays as it was recorded, its unit given back.
   */
  async endedElsewhere(dr: D, found: JobSincePlan): Promise<'left'> {
    this.deps.guard?.release(dr.job.id);
    this.releaseSlot(dr);
    const job = dr.job;
    if (neverSent(job)) await this.deps.ledger.superseded(job, endedWords(found));
    else await this.deps.shared?.letGo(job);
    reportEndedElsewhere(this.deps.report, refOfJob(job), found, this.log(job));
    this.releaseWorker(dr);
    return 'left';
  }

  /**
   * The source was replaced before anything was sent: the job ends unsent (a row that never led to
   * a call is removed); the executor has the file decided again with its new content.
   */
  async supersede(dr: D): Promise<'superseded'> {
    this.releaseSlot(dr);
    const job = dr.job;
    const error = this.words.superseded;
    await this.deps.ledger.superseded(job, error);
    this.log(job).info(error);
    // Listeners that track jobs in flight (progress, watch metrics) see it end; not a failure of the run.
    this.deps.report.events.emit('job:failed', {
      ...refOfJob(job),
      kind: 'transient',
      error,
      willRetry: true,
    });
    this.releaseWorker(dr);
    return 'superseded';
  }

  /**
   * A call's answer was lost: recorded as maybe-accepted (counted in jobs.unconfirmed_uploads, so
   * report and status list it), not reported as a failure: the executor sends it again at its turn.
   */
  async defer(dr: D, error: string): Promise<'deferred'> {
    await this.recordFailure(dr, 'maybe-accepted', error, {
      keepDocument: false,
      countsAttempt: true,
      keepClaim: true,
    });
    this.log(dr.job).warn(this.words.deferred);
    return 'deferred';
  }

  /**
   * Uploads have stopped (a signal, the quota, a budget cap, a refused key): how the job ends; none
   * when they have not. Nothing of this attempt left: a stop by signal leaves the job as recorded
   * for the next run, the others fail it (retried by a later run, no attempt counted); a lost
   * answer's repeat goes back to the executor, which reports it as when uploads stopped before its
   * turn. A call of the attempt had left: the attempt is given back (what was answered stays
   * recorded), for a stop by signal as stopped (a row left as sending would read as a call in
   * flight, maybe billed). `own`: the stop is this call's own (a budget cap refused its
   * reservation): it fails as the stop's, a lost answer's repeat too.
   */
  stopped(dr: D, own = false): Promise<'failed' | 'left' | 'deferred'> | undefined {
    const stopped = this.deps.control.uploadsStopped;
    if (!stopped) return undefined;
    if (!dr.attempt?.started) {
      this.deps.guard?.release(dr.job.id);
      if (dr.reupload === 'lost-answer' && !own) {
        this.releaseSlot(dr);
        return Promise.resolve('deferred');
      }
      if (this.deps.control.stopping) return Promise.resolve(this.leave(dr));
    } else if (this.deps.control.stopping)
      return (async () => {
        await this.recordFailure(dr, 'stopped', this.words.stoppedAfterSending, {
          keepDocument: false,
          countsAttempt: false,
        });
        this.deps.report.unitLeft(refOfJob(dr.job), false);
        return 'left' as const;
      })();
    return this.fail(dr, stopped.kind, stopped.reason, {
      willRetry: true,
      keepDocument: false,
      countsAttempt: false,
    });
  }
}
