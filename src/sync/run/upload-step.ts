import type { ServiceClient } from '../../api/client.js';
import type { UploadDocumentRequest, UploadDocumentResponse } from '../../api/types.js';
import type { Logger } from '../../log/logger.js';
import { registerSecret } from '../../log/secrets.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { FileInventory, JobFailure, JobRecord, SharedWork } from '../../state/types.js';
import type { FailureKind } from '../events.js';
import { sha256File } from '../plan/list-sources.js';
import type { RunControl } from './control.js';
import type { Places, Slots } from './places.js';
import type { RunLedger } from './run-ledger.js';
import { refOfJob, type RunReport } from './report.js';
import { sourceHolds } from './source-check.js';
import { uploadFailure } from './upload-failure.js';

// The upload step of a job (./job-driver.ts drives the job through its steps): one upload of its
// document, from the checks right before it (uploads stopped, the source still the same, a worker
// place and a download slot, the budget) to the record of its answer, and what happened: 'again'
// (uploaded, id and key recorded: the driver collects it next), or how the job ended unsent or
// failed. How a step ends (a failure recorded, the job left for the next run, taken over by another
// worker) is the driver's, shared with its other steps (DriveEnds).

/** What a job needs to be uploaded (again): its source and its request. */
export interface JobSource {
  absPath: string | undefined;
  request: UploadDocumentRequest | undefined;
}

/** What the upload step uses of the driver's dependencies (JobDriverDeps in ./job-driver.ts). */
export interface UploadStepDeps {
  client: Pick<ServiceClient, 'uploadDocument'>;
  /** The one writer of job rows (reads go to the state's job ledger). */
  ledger: RunLedger;
  files: FileInventory;
  report: RunReport;
  control: RunControl;
  places: Places;
  slots: Slots;
  runId: number;
  maxAttempts: number;
  /** service.retry_unanswered_uploads: an upload whose answer was lost is uploaded again this run. */
  retryUnanswered: boolean;
  /** The budget caps during the run (none set: absent). */
  guard?: SpendGuard;
  /** Several workers share the state: its pause (database away) and fenced uploads apply. */
  shared?: SharedWork;
}

/** The part of a drive (the job as last recorded and what this run holds for it) the upload moves on. */
export interface UploadDrive {
  job: JobRecord;
  /** A download slot (from the upload until the download). */
  holdsSlot: boolean;
  /** Give back the worker place (undefined: not held). */
  worker: (() => void) | undefined;
  reupload: 'lost-download' | 'unconfirmed-upload' | 'lost-answer' | undefined;
}

/** How a failure is recorded on the job (JobFailure). */
export type FailureRecord = Pick<
  JobFailure,
  'keepDocument' | 'countsAttempt' | 'retriedKept' | 'keepClaim' | 'unsent'
>;

/** A failure recorded and reported: whether a later run tries again. */
export type ReportedFailure = Omit<FailureRecord, 'keepClaim'> & { willRetry: boolean };

/** How a step of a drive ends, the same for every step: the driver's (./job-driver.ts). */
export interface DriveEnds<D extends UploadDrive> {
  log(job: JobRecord): Logger;
  releaseSlot(dr: D): void;
  releaseWorker(dr: D): void;
  fail(dr: D, kind: FailureKind, error: string, o: ReportedFailure): Promise<'failed'>;
  recordFailure(dr: D, kind: FailureKind, error: string, o: FailureRecord): Promise<void>;
  leave(dr: D): 'left';
  takenOver(dr: D, err: HeldByOtherWorkerError): 'left';
}

/**
 * What happened to the upload: 'again' (uploaded, id and key recorded), or how the job ended without
 * a recorded document (`deferred`: its answer was lost, see JobOutcome in ./job-driver.ts).
 */
export type UploadOutcome = 'again' | 'failed' | 'superseded' | 'left' | 'deferred';

export class UploadStep<D extends UploadDrive> {
  constructor(
    private readonly d: UploadStepDeps,
    private readonly ends: DriveEnds<D>,
  ) {}

  /** Upload the job's document and record its id and key. */
  async upload(dr: D, src: JobSource): Promise<UploadOutcome> {
    const stopped = this.uploadsStopped(dr);
    if (stopped) return stopped;
    if (!src.absPath || !src.request)
      return this.ends.fail(dr, 'output', 'the source of this job is no longer in the manifest', {
        willRetry: false,
        keepDocument: false,
        countsAttempt: true,
      });
    if (dr.reupload === 'lost-download') {
      // Only upload again what is still the same content.
      const sha = await sha256File(src.absPath).catch(() => undefined);
      if (sha !== dr.job.sha256)
        return this.ends.fail(
          dr,
          'output',
          'the source changed or disappeared since this document was uploaded; its new content is handled as a new job',
          { willRetry: false, keepDocument: false, countsAttempt: true },
        );
    }
    dr.worker ??= await this.d.places.take();
    if (!dr.holdsSlot) {
      await this.d.slots.acquire();
      dr.holdsSlot = true;
    }
    // Right before the upload: the file must still hold the content this job records.
    if (!(await sourceHolds(this.d.files, dr.job.mapping, dr.job.rel_path, dr.job.sha256, src.absPath)))
      return this.supersede(dr);
    const estimate = this.d.guard ? await this.d.guard.estimate(dr.job, src.absPath) : 0;
    // Uploads may have stopped while this job waited for a place: none starts after that.
    const stoppedSince = this.uploadsStopped(dr);
    if (stoppedSince) return stoppedSince;
    const over = await this.d.guard?.reserve(dr.job.id, estimate);
    if (over) {
      this.d.control.stopForBudget(over, estimate);
      // The cap refuses this upload itself (a repeat too): failed as the budget's.
      return this.stoppedBefore(dr) ?? 'failed';
    }
    // Nothing is uploaded while the state cannot record the answer (PostgreSQL away).
    while (this.d.shared?.paused && !this.d.control.uploadsStopped) await sleep(250);
    const stoppedMeanwhile = this.uploadsStopped(dr);
    if (stoppedMeanwhile) {
      this.d.guard?.release(dr.job.id);
      return stoppedMeanwhile;
    }
    // Recorded as it leaves, once the rate limits let it go (the client's beforeSend): from there it
    // may be billed. One still waiting in the limiter has sent nothing (a kill there leaves nothing
    // possibly billed). Once: a retry of an upload surely not taken is the same attempt.
    let leaving: Promise<void> | undefined;
    const leaves = (): Promise<void> => (leaving ??= this.uploadLeaves(dr));
    // Uploads that stop meanwhile end an attempt that has not left: its wait (the rate limits, a
    // retry's pause) is cut, and one the limiter just let go is refused before its bytes leave.
    const send = this.d.control.sendOptions(leaves);
    let answer: { res: UploadDocumentResponse } | { err: unknown };
    try {
      answer = { res: await this.d.client.uploadDocument(src.absPath, src.request, send) };
    } catch (err) {
      answer = { err };
    }
    if ('err' in answer && this.d.control.endedUnsent(answer.err))
      return this.stoppedUnsent(dr, leaving !== undefined);
    // A client that does not call `beforeSend` (the service client does) is recorded once the call
    // ended, before its outcome. A record refused in `beforeSend` ended the call unsent: thrown here.
    try {
      await leaves();
    } catch (err) {
      if (!(err instanceof HeldByOtherWorkerError)) throw err;
      // Refused only after the answer came (such a client): its document was billed.
      if ('res' in answer) return this.answerTakenOver(dr, answer.res.document_id, err);
      return this.ends.takenOver(dr, err);
    }
    if ('err' in answer) {
      const err = answer.err;
      const f = uploadFailure(err, dr.job.attempts < this.d.maxAttempts, this.d.retryUnanswered);
      this.d.control.stopOnRefusal(
        f.stopUploads,
        err as Error,
        'No more uploads this run; documents already uploaded are still collected.',
      );
      if (f.retryInRun) return this.defer(dr, f.error);
      return this.ends.fail(dr, f.kind, f.error, {
        willRetry: f.willRetry,
        keepDocument: false,
        countsAttempt: f.countsAttempt,
      });
    }
    const res = answer.res;
    // Record id+key the moment the upload answers.
    registerSecret(res.document_key);
    try {
      dr.job = await this.d.ledger.uploaded(dr.job, res.document_id, res.document_key);
    } catch (err) {
      if (!(err instanceof HeldByOtherWorkerError)) throw err;
      return this.answerTakenOver(dr, res.document_id, err);
    }
    this.d.report.events.emit('job:uploaded', { ...refOfJob(dr.job), documentId: res.document_id });
    this.ends.log(dr.job).info('uploaded');
    dr.reupload = undefined;
    return 'again';
  }

  /**
   * Uploads stopped while this upload waited to leave: nothing of it was sent. Not left before: it
   * ends as one they stopped before (no attempt, nothing billed, the next run uploads it). An earlier
   * attempt left and was surely not taken (this one was its retry): recorded as not sent, for a stop
   * by signal as stopped (a row left as uploading would read as an upload in flight, maybe billed).
   */
  private async stoppedUnsent(dr: D, retry: boolean): Promise<UploadOutcome> {
    const stopped = this.d.control.uploadsStopped;
    if (!retry || !stopped) {
      this.d.guard?.release(dr.job.id);
      return (await this.uploadsStopped(dr)) ?? 'failed';
    }
    if (!this.d.control.stopping) return this.stoppedBefore(dr, true) as Promise<'failed' | 'left'>;
    await this.ends.recordFailure(
      dr,
      'stopped',
      'the run was stopped before this upload was tried again (its earlier attempts were surely not taken); uploaded by the next run',
      { keepDocument: false, countsAttempt: false },
    );
    this.d.report.unitLeft(refOfJob(dr.job), false);
    return 'left';
  }

  /** The upload leaves (the rate limits let it go): recorded as started, an attempt, and reported. */
  private async uploadLeaves(dr: D): Promise<void> {
    const reupload = dr.reupload;
    dr.job = await this.d.ledger.uploadStarted(
      dr.job,
      this.d.runId,
      reupload === 'lost-download' ? 'lost-download' : undefined,
    );
    const attempt = dr.job.attempts;
    // Possibly billed twice from here on (the summary lists it; the job row counts it already).
    if (reupload === 'lost-answer') this.d.report.unconfirmedUpload(refOfJob(dr.job), 'lost-answer');
    this.d.report.events.emit('job:uploading', {
      ...refOfJob(dr.job),
      attempt,
      ...(reupload ? { reupload } : {}),
    });
    this.ends.log(dr.job).info({ attempt, reupload }, 'uploading');
  }

  /**
   * The upload answered after another worker took the job over: the answer cannot be recorded on
   * the job (that worker found its upload unanswered, counted it in the job's unconfirmed uploads and
   * uploads it again). Its document was billed: counted so by the budget, listed with its id.
   */
  private answerTakenOver(dr: D, documentId: string, err: HeldByOtherWorkerError): 'left' {
    this.d.guard?.possiblyBilled(dr.job.id);
    this.d.report.answerTakenOver(refOfJob(dr.job), documentId, err.holder);
    return this.ends.takenOver(dr, err);
  }

  /**
   * The source was replaced before the upload: the job ends unsent (a row that never led to an upload
   * is removed); the caller has the file decided again with its new content.
   */
  private async supersede(dr: D): Promise<'superseded'> {
    this.ends.releaseSlot(dr);
    const job = dr.job;
    const error =
      'the source changed after this job was planned: not uploaded; its new content is planned instead';
    await this.d.ledger.superseded(job, error);
    this.ends.log(job).info(error);
    // Listeners that track jobs in flight (progress, watch metrics) see it end; not a failure of the run.
    this.d.report.events.emit('job:failed', { ...refOfJob(job), kind: 'transient', error, willRetry: true });
    this.ends.releaseWorker(dr);
    return 'superseded';
  }

  /**
   * The upload's answer was lost: recorded as maybe-accepted (counted in jobs.unconfirmed_uploads, so
   * report and status list it), not reported as a failure: the executor uploads it again at its turn.
   */
  private async defer(dr: D, error: string): Promise<'deferred'> {
    await this.ends.recordFailure(dr, 'maybe-accepted', error, {
      keepDocument: false,
      countsAttempt: true,
      keepClaim: true,
    });
    const log = this.ends.log(dr.job);
    log.warn(
      'the answer to this upload was lost (the service may have accepted and billed it): uploaded again later in this run (after a pause, or once the rest of the run is done)',
    );
    return 'deferred';
  }

  /**
   * When uploads have stopped: a stop by signal leaves the job as recorded for the next run (not a
   * failure); quota or a refused key fail it (retried by a later run, no attempt counted). A lost
   * answer's repeat goes back to the executor unsent and unwritten: its turn came, but uploads
   * stopped while it waited for a place, which the executor reports as when they stopped before its
   * turn (maybe-accepted: the upload whose answer was lost may have been billed).
   */
  private uploadsStopped(dr: D): Promise<'failed' | 'left' | 'deferred'> | undefined {
    if (!this.d.control.uploadsStopped) return undefined;
    if (dr.reupload !== 'lost-answer') return this.stoppedBefore(dr);
    this.ends.releaseSlot(dr);
    return Promise.resolve('deferred');
  }

  /**
   * uploadsStopped() for any upload (also a repeat refused by its own budget reservation). `left`:
   * an attempt of this upload left and was counted (a retry was cut after it): given back, it was
   * surely not taken. Else it never left and gives back nothing (earlier uploads' attempts stay).
   */
  private stoppedBefore(dr: D, left = false): Promise<'failed' | 'left'> | undefined {
    const stopped = this.d.control.uploadsStopped;
    if (!stopped) return undefined;
    if (this.d.control.stopping) return Promise.resolve(this.ends.leave(dr));
    return this.ends.fail(dr, stopped.kind, stopped.reason, {
      willRetry: true,
      keepDocument: false,
      countsAttempt: false,
      ...(left ? {} : { unsent: true }),
    });
  }
}
