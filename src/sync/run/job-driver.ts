import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AuthError, NotFoundError } from '../../api/errors.js';
import type { ServiceClient } from '../../api/client.js';
import type { DocumentStatus } from '../../api/types.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import type { Logger } from '../../log/logger.js';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { JobLedger, JobRecord } from '../../state/types.js';
import { CopyMismatchError, copyFileAtomic, removePartFiles } from '../../util/part-file.js';
import { spooledPath } from '../../util/spool.js';
import { recoverWritten, writeAdvice } from './written-output.js';
import { Placement, writtenOf } from './edited-output.js';
import { alreadyWritten, findSpooled, type SpoolFile } from './spooled-download.js';
import { keepFor } from './replaced-outputs.js';
import type { FailureKind } from '../events.js';
import type { PollTiming } from '../timing.js';
import { isAbort, pollUntilFinished } from './poll.js';
import { refOfJob } from './report.js';
import { JobEnds, type DriveState, type JobOutcome, type ReportedFailure } from './job-ends.js';
import { UploadStep, type JobSource, type UploadStepDeps } from './upload-step.js';
import { QaFailedError, type OutputGate } from '../../qa/gate.js';
import type { QaResult } from '../../qa/checks.js';

// One job from its last record to done: upload (only when no document is recorded; ./upload-step.ts)
// → record id+key → poll → download into the spool → record it there → check and write the output →
// record done → remove the spool file. A document lost before its download is uploaded again; one in
// the spool is delivered from there (./spooled-download.ts); a source replaced before its upload
// closes the job unsent ('superseded': the executor has it decided again).

/** The part of the service client the engine uses for documents. */
export type DocumentClient = Pick<ServiceClient, 'uploadDocument' | 'getDocumentStatus' | 'downloadDocument'>;

/** What a job needs to be uploaded (again): the upload step's (./upload-step.ts). */
export type { JobSource };

/** How a drive ends (./job-ends.ts; `deferred`: uploaded again at its turn, ./lost-answers.ts). */
export type { JobOutcome };

export interface JobDriverDeps extends UploadStepDeps {
  client: DocumentClient;
  jobs: JobLedger;
  timing: PollTiming;
  logger: Logger;
  /** The manifest's folder (outputs are relative to it). */
  base: string;
  /** Where every download is received before it is checked and written (../../util/spool.ts). */
  spoolDir: string;
  /** The output checks of each download before it is put in place (../../qa/gate.ts). */
  gate: OutputGate;
  /** sync --overwrite-edits: outputs edited by people are replaced (./edited-output.ts). */
  overwriteEdits?: boolean;
}

/** One drive: the job as last recorded and what this run holds for it. */
interface Drive extends DriveState {
  resumed: boolean;
  outputAbs: string;
  /** The source (absolute), for the output checks; undefined when unknown. */
  sourceAbs: string | undefined;
  /** The output checks' verdict on the download (set once it passed them). */
  qa?: QaResult;
}

type Step = 'again' | JobOutcome;

export class JobDriver {
  private readonly uploads: UploadStep<Drive>;
  private readonly ends: JobEnds<Drive>;

  constructor(private readonly deps: JobDriverDeps) {
    this.ends = new JobEnds<Drive>(deps, WORDS, spendOnFailure);
    this.uploads = new UploadStep(deps, this.ends);
  }

  /**
   * Drive a job to done (or a recorded failure). `worker`: a place already taken for it; `holdsSlot`:
   * a download slot already taken (a resumed document).
   */
  async drive(
    job: JobRecord,
    src: JobSource,
    flags: { resumed: boolean; holdsSlot: boolean; unconfirmed?: boolean; lostAnswer?: boolean },
    worker?: () => void,
  ): Promise<JobOutcome> {
    const dr: Drive = {
      job,
      holdsSlot: flags.holdsSlot,
      worker: worker ?? (await this.deps.places.take()),
      reupload: flags.lostAnswer ? 'lost-answer' : flags.unconfirmed ? 'unconfirmed-upload' : undefined,
      resumed: flags.resumed,
      outputAbs: path.resolve(this.deps.base, job.output_path),
      sourceAbs: src.absPath,
    };
    try {
      // A download or a copy an earlier run started may have left part files in the spool and
      // beside the output.
      if (job.download_started_ms !== null) {
        await removePartFiles(dr.outputAbs);
        if (job.document_id) await removePartFiles(spooledPath(this.deps.spoolDir, job.document_id));
      }
      for (;;) {
        const step =
          !dr.job.document_key || !dr.job.document_id || dr.job.status === 'failed'
            ? await this.uploads.upload(dr, src)
            : await this.collect(dr);
        if (step !== 'again') return step;
      }
    } catch (err) {
      if (!(err instanceof HeldByOtherWorkerError)) throw err;
      return this.ends.takenOver(dr, err);
    } finally {
      dr.worker?.();
    }
  }

  private log(job: JobRecord): Logger {
    return this.ends.log(job);
  }

  private releaseSlot(dr: Drive): void {
    this.ends.releaseSlot(dr);
  }

  private releaseWorker(dr: Drive): void {
    this.ends.releaseWorker(dr);
  }

  private fail(dr: Drive, kind: FailureKind, error: string, o: ReportedFailure): Promise<'failed'> {
    return this.ends.fail(dr, kind, error, o);
  }

  private leave(dr: Drive): 'left' {
    return this.ends.leave(dr);
  }

  /** Poll an uploaded document until it is finished, then download it. */
  private async collect(dr: Drive): Promise<Step> {
    if (!dr.holdsSlot) {
      this.deps.slots.hold();
      dr.holdsSlot = true;
    }
    const job = dr.job;
    const documentId = job.document_id as string;
    const key = job.document_key as string;
    const log = this.log(job);
    // Downloaded by an earlier run but not written: delivered from the spool, not asked again.
    if (dr.resumed || job.spool_path) {
      const spooled = await findSpooled(job, this.deps.spoolDir, this.deps.shared);
      if (spooled.kind === 'here') return this.deliverSpooled(dr, spooled, log);
      if (spooled.kind === 'held') return this.leaveToSpool(dr, spooled.holder);
      if (spooled.kind === 'lost') {
        // Bytes that are not what was received are of no use to anyone.
        if (spooled.damaged) await fsp.rm(spooled.damaged, { force: true });
        return this.lose(dr, spooled.reason);
      }
    }
    let status: DocumentStatus;
    try {
      status = await pollUntilFinished({
        // The same signal ends a poll still waiting in the rate limiter (the shutdown grace is over).
        getStatus: () =>
          this.deps.client.getDocumentStatus(documentId, key, { signal: this.deps.control.pollAbort.signal }),
        timing: this.deps.timing,
        signal: this.deps.control.pollAbort.signal,
        askAtOnce: dr.resumed,
        onWaiting: (st, secondsRemaining) =>
          this.deps.report.events.emit('job:translating', {
            ...refOfJob(job),
            documentId,
            status: st,
            ...(secondsRemaining !== undefined ? { secondsRemaining } : {}),
          }),
        log,
      });
    } catch (err) {
      if (err instanceof NotFoundError) {
        const recovered = recoverWritten(job, dr.outputAbs, log);
        if (recovered) return this.finish(dr, recovered.billed, recovered.bytes, log);
        return this.lose(dr, err.message);
      }
      if (err instanceof AuthError) this.deps.control.stopForAuth(err);
      const keep = { willRetry: true, keepDocument: true, countsAttempt: true };
      // The shutdown grace is over: its id and key stay recorded for the next run.
      if (isAbort(err) && this.deps.control.stopping) return this.leave(dr);
      if (isAbort(err))
        return this.fail(
          dr,
          'stopped',
          'the run was stopped while waiting for the translation; it resumes next run',
          keep,
        );
      return this.fail(
        dr,
        'transient',
        `status check failed: ${(err as Error).message}; resumes next run`,
        keep,
      );
    }
    if (status.status === 'error') {
      log.warn({ message: status.message }, 'the service could not translate the document');
      return this.fail(dr, 'job-error', status.message, {
        willRetry: job.attempts < this.deps.maxAttempts,
        keepDocument: false,
        countsAttempt: true,
      });
    }
    if (status.status !== 'done') return 'again';
    // Past the shutdown grace no download starts: the next run collects the document.
    if (this.deps.control.stopping && this.deps.control.pollAbort.signal.aborted) return this.leave(dr);
    return this.download(dr, status.billed_characters, log);
  }

  /**
   * Download a finished document into the spool and record it there (the worker is free for the next
   * upload meanwhile); it is checked and written from there.
   */
  private async download(dr: Drive, billed: number, log: Logger): Promise<Step> {
    this.releaseWorker(dr);
    dr.job = await this.deps.ledger.downloading(dr.job, billed, Date.now());
    // After the bill is recorded: a reservation shared with other workers is given back only then.
    const beyond = (await this.deps.guard?.settle(dr.job.id, billed)) ?? 0;
    if (beyond > 0)
      log.warn(
        { billed, beyond_estimate: beyond },
        'the service billed more than the budget reserved for this document: the caps can be exceeded by that difference',
      );
    const documentId = dr.job.document_id as string;
    this.deps.report.events.emit('job:downloading', { ...refOfJob(dr.job), documentId });
    const spoolAt = spooledPath(this.deps.spoolDir, documentId);
    let received: { bytes: number; sha256: string };
    try {
      fs.mkdirSync(this.deps.spoolDir, { recursive: true, mode: 0o700 });
      // Streamed to a part file in the spool, fsynced, renamed: a spool file is always whole.
      received = await this.deps.client.downloadDocument(documentId, dr.job.document_key as string, spoolAt);
    } catch (err) {
      if (err instanceof NotFoundError) return this.lose(dr, err.message);
      if (err instanceof AuthError) this.deps.control.stopForAuth(err);
      return this.fail(dr, 'output', `download failed: ${(err as Error).message}; ${writeAdvice(err)}`, {
        willRetry: true,
        keepDocument: true,
        countsAttempt: true,
        retriedKept: dr.resumed,
      });
    }
    const spool = { path: spoolAt, sha256: received.sha256, size: received.bytes };
    // Recorded before anything else is done with it: whoever resumes the job delivers it from here.
    dr.job = await this.deps.ledger.spooled(dr.job, { ...spool, holder: this.deps.shared?.workerId ?? null });
    return this.deliverSpooled(dr, spool, log, { fresh: true });
  }

  /** Where this job's delivery goes: over its output, or beside it when a person edited it. */
  private async placement(dr: Drive): Promise<Placement> {
    const previous = await this.deps.jobs.latestDoneOf(dr.job.output_path);
    const record = previous && previous.id !== dr.job.id ? await this.deps.jobs.get(previous.id) : undefined;
    return new Placement(
      dr.outputAbs,
      record,
      this.deps.overwriteEdits ?? false,
      // The spool is in the state folder (../../util/spool.ts): what is kept goes beside it.
      keepFor({ base: this.deps.base, stateFolder: path.dirname(this.deps.spoolDir) }, this.deps.runId, {
        outputRel: dr.job.output_path,
        target: dr.job.target_lang,
        sourceAbs: dr.sourceAbs,
      }),
    );
  }

  /**
   * Check a spooled translation and write it to its output (no request to the service); the spool
   * file goes once the output is recorded. `fresh`: just downloaded by this worker (no earlier
   * worker can have written it).
   */
  private async deliverSpooled(
    dr: Drive,
    spool: SpoolFile,
    log: Logger,
    o: { fresh?: boolean } = {},
  ): Promise<Step> {
    this.releaseWorker(dr);
    // An earlier worker stopped after writing the output but before recording it: taken as it is
    // (written again, it would look like a person's edit of the output).
    const written = o.fresh ? undefined : await alreadyWritten(spool, dr.outputAbs);
    if (written) {
      log.info(
        { spooled: spool.path },
        'the output was written from the spool by an earlier run that stopped before recording it: taken as done',
      );
      return this.delivered(dr, spool, spool.size, log, written);
    }
    let bytes: number;
    const placement = await this.placement(dr);
    try {
      await this.gate(dr, spool.path);
      fs.mkdirSync(path.dirname(dr.outputAbs), { recursive: true });
      bytes = await copyFileAtomic(spool.path, dr.outputAbs, placement.placeAt, spool.sha256);
    } catch (err) {
      if (err instanceof QaFailedError) return this.qaFailed(dr, err);
      if (err instanceof CopyMismatchError) {
        await fsp.rm(spool.path, { force: true });
        return this.lose(dr, `the translation in the spool (${spool.path}) changed since it was received`);
      }
      return this.fail(
        dr,
        'output',
        `writing the output failed: ${(err as Error).message}; the translation is kept in the spool (${spool.path}) for the next run; ${writeAdvice(err)}`,
        { willRetry: true, keepDocument: true, countsAttempt: true, retriedKept: dr.resumed },
      );
    }
    if (!o.fresh) log.info({ spooled: spool.path }, 'delivered from the spool (no new download)');
    return this.delivered(dr, spool, bytes, log, placement);
  }

  /** The output holds the spooled translation: recorded done, then the spool file goes. */
  private async delivered(
    dr: Drive,
    spool: SpoolFile,
    bytes: number,
    log: Logger,
    placement: { placed: string; beside: boolean },
  ): Promise<'done'> {
    const outcome = await this.finish(dr, dr.job.billed_characters ?? 0, bytes, log, placement, spool.sha256);
    await fsp.rm(spool.path, { force: true });
    return outcome;
  }

  /**
   * The translation is in the spool of a live worker on another machine (this one cannot reach it):
   * the job is left to that worker, its unit given back so that it can take it up.
   */
  private async leaveToSpool(dr: Drive, holder: string): Promise<'left'> {
    this.releaseSlot(dr);
    await this.deps.shared?.letGo(dr.job);
    this.log(dr.job).info({ worker: holder }, "the translation waits in another worker's spool: left to it");
    this.deps.report.heldElsewhere(refOfJob(dr.job), holder, this.log(dr.job));
    return 'left';
  }

  /** `placement`: where this run put the delivery (none: an earlier run put it at the output). */
  private async finish(
    dr: Drive,
    billed: number,
    bytes: number,
    log: Logger,
    placement?: Pick<Placement, 'placed' | 'beside'>,
    sha256?: string,
  ): Promise<'done'> {
    const written = await writtenOf(placement?.placed ?? dr.outputAbs, sha256).catch(() => undefined);
    dr.job = await this.deps.ledger.done(dr.job, billed, written);
    if (dr.qa) await this.recordQa(dr, dr.qa, log);
    if (placement?.beside) this.deps.report.editedKept(dr.job, placement.placed, log);
    await this.deps.guard?.settle(dr.job.id, billed);
    this.releaseSlot(dr);
    this.deps.report.jobDone(dr.job, billed, bytes, log);
    return 'done';
  }

  /** The output checks (../../qa/gate.ts) of a downloaded file before it is put in place. */
  private async gate(dr: Drive, candidate: string): Promise<void> {
    dr.qa = await this.deps.gate.vet(dr.job, dr.sourceAbs, candidate);
  }

  /** The checks' verdict kept in the state and reported (a flagged output is listed by the summary). */
  private async recordQa(dr: Drive, result: QaResult, log: Logger): Promise<void> {
    await this.deps.gate.record(dr.job, result);
    this.deps.report.qaChecked(dr.job, result, log);
  }

  /**
   * The download failed a hard check: not delivered (it is in the quarantine, the previous output
   * stays) and not uploaded again by the next run (the service would likely answer the same, and
   * bill it): only `sync --retry-failed-qa` buys it again.
   */
  private qaFailed(dr: Drive, err: QaFailedError): Promise<'failed'> {
    this.deps.report.qaChecked(dr.job, err.result, this.deps.logger);
    return this.fail(dr, 'qa-failed', err.message, {
      willRetry: false,
      keepDocument: false,
      countsAttempt: true,
    });
  }

  /** The document is gone (404) before it was downloaded: recorded and reported; uploaded again. */
  private async lose(dr: Drive, message: string): Promise<'again'> {
    this.releaseSlot(dr);
    this.deps.report.lostDownload(dr.job, message);
    dr.job = await this.deps.ledger.lostDownload(dr.job);
    dr.reupload = 'lost-download';
    return 'again';
  }
}

/** How the document path speaks of the ends of a drive (./job-ends.ts). */
const WORDS = {
  superseded:
    'the source changed after this job was planned: not uploaded; its new content is planned instead',
  stoppedAfterSending:
    'the run was stopped before this upload was tried again (its earlier attempts were surely not taken); uploaded by the next run',
  deferred:
    'the answer to this upload was lost (the service may have accepted and billed it): uploaded again later in this run (after a pause, or once the rest of the run is done)',
};

/**
 * An upload reserves its estimate, which the state does not record: one that may have been
 * accepted counts for good (also when it is uploaded again: then it counts twice); any other
 * failure billed nothing (a document already billed was settled at its download).
 */
function spendOnFailure(guard: SpendGuard, dr: DriveState, kind: FailureKind): void {
  if (kind === 'maybe-accepted') guard.possiblyBilled(dr.job.id);
  else guard.release(dr.job.id);
}
