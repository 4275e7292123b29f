import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AuthError, NotFoundError } from '../../api/errors.js';
import type { ServiceClient } from '../../api/client.js';
import type { DocumentStatus } from '../../api/types.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import type { Logger } from '../../log/logger.js';
import { CopyMismatchError, copyFileAtomic, removePartFiles } from '../../util/part-file.js';
import { spooledPath } from '../../util/spool.js';
import type { FailureKind } from '../events.js';
import type { PollTiming } from '../timing.js';
import { recoverWritten, writeAdvice } from './written-output.js';
import { alreadyWritten, findSpooled, type SpoolFile } from './spooled-download.js';
import { isAbort, pollUntilFinished } from './poll.js';
import { refOfJob } from './live-summary.js';
import { JobEnds, type DriveState, type JobOutcome } from './job-ends.js';
import type { Drive, JobMethod, JobSource } from './job-lifecycle.js';
import type { DeliveryDeps, Translation } from './output-delivery.js';
import { UploadStep, type UploadStepDeps } from './upload-step.js';
import { refusedForGood } from '../refused-for-good.js';

// The document method (the default), a strategy of the one job lifecycle (./job-lifecycle.ts):
// upload the source (only when no document is recorded; ./upload-step.ts) → record id+key → poll →
// download into the spool → record it there → the translation is the spool file, delivered by the
// shared step (./output-delivery.ts), which removes the spool file once the output is recorded. A
// document lost before its download is uploaded again; one in the spool is delivered from there
// (./spooled-download.ts); a source replaced before its upload closes the job unsent ('superseded':
// the executor has it decided again).

/** The part of the service client the engine uses for documents. */
export type DocumentClient = Pick<ServiceClient, 'uploadDocument' | 'getDocumentStatus' | 'downloadDocument'>;

export interface DocumentMethodDeps extends UploadStepDeps, DeliveryDeps {
  client: DocumentClient;
  timing: PollTiming;
}

/** A step of the drive: uploaded ('again': collected next), translated, or ended. */
type Step = 'again' | Translation | JobOutcome;

export class DocumentMethod implements JobMethod {
  readonly ends: JobEnds<Drive>;
  private readonly uploads: UploadStep<Drive>;

  constructor(private readonly deps: DocumentMethodDeps) {
    this.ends = new JobEnds<Drive>(deps, WORDS, spendOnFailure);
    this.uploads = new UploadStep(deps, this.ends);
  }

  /** Every job the segment method does not take. */
  takes(): boolean {
    return true;
  }

  async translate(dr: Drive, src: JobSource): Promise<Translation | JobOutcome> {
    const job = dr.job;
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
    const log = this.ends.log(job);
    // Downloaded by an earlier run but not written: delivered from the spool, not asked again.
    if (dr.flags.resumed || job.spool_path) {
      const spooled = await findSpooled(job, this.deps.spoolDir, this.deps.shared);
      if (spooled.kind === 'here') return this.fromSpool(dr, spooled, log);
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
        askAtOnce: dr.flags.resumed,
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
        if (recovered) return recoveredOutput(dr, recovered);
        return this.lose(dr, err.message);
      }
      if (err instanceof AuthError) this.deps.control.stopForAuth(err);
      const keep = { willRetry: true, keepDocument: true, countsAttempt: true };
      // The shutdown grace is over: its id and key stay recorded for the next run.
      if (isAbort(err) && this.deps.control.stopping) return this.ends.leave(dr);
      if (isAbort(err))
        return this.ends.fail(
          dr,
          'stopped',
          'the run was stopped while waiting for the translation; it resumes next run',
          keep,
        );
      return this.ends.fail(
        dr,
        'transient',
        `status check failed: ${(err as Error).message}; resumes next run`,
        keep,
      );
    }
    if (status.status === 'error') {
      log.warn({ message: status.message }, 'the service could not translate the document');
      const forGood = refusedForGood(status.message);
      return this.ends.fail(dr, forGood ? 'needs-fix' : 'job-error', status.message, {
        willRetry: !forGood && job.attempts < this.deps.maxAttempts,
        keepDocument: false,
        countsAttempt: true,
      });
    }
    if (status.status !== 'done') return 'again';
    // Past the shutdown grace no download starts: the next run collects the document.
    if (this.deps.control.stopping && this.deps.control.pollAbort.signal.aborted) return this.ends.leave(dr);
    return this.download(dr, status.billed_characters, log);
  }

  /**
   * Download a finished document into the spool and record it there (the worker is free for the next
   * upload meanwhile); it is checked and written from there.
   */
  private async download(dr: Drive, billed: number, log: Logger): Promise<Step> {
    this.ends.releaseWorker(dr);
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
      return this.ends.fail(dr, 'output', `download failed: ${(err as Error).message}; ${writeAdvice(err)}`, {
        willRetry: true,
        keepDocument: true,
        countsAttempt: true,
        retriedKept: dr.flags.resumed,
      });
    }
    const spool = { path: spoolAt, sha256: received.sha256, size: received.bytes };
    // Recorded before anything else is done with it: whoever resumes the job delivers it from here.
    dr.job = await this.deps.ledger.spooled(dr.job, { ...spool, holder: this.deps.shared?.workerId ?? null });
    return this.fromSpool(dr, spool, log, { fresh: true });
  }

  /**
   * A spooled translation, to be checked and written to its output (no request to the service); the
   * spool file goes once the output is recorded. `fresh`: just downloaded by this worker (no earlier
   * worker can have written it).
   */
  private async fromSpool(
    dr: Drive,
    spool: SpoolFile,
    log: Logger,
    o: { fresh?: boolean } = {},
  ): Promise<Translation> {
    this.ends.releaseWorker(dr);
    // An earlier worker stopped after writing the output but before recording it: taken as it is
    // (written again, it would look like a person's edit of the output).
    const written = o.fresh ? undefined : await alreadyWritten(spool, dr.outputAbs);
    if (written)
      log.info(
        { spooled: spool.path },
        'the output was written from the spool by an earlier run that stopped before recording it: taken as done',
      );
    const billed = () => dr.job.billed_characters ?? 0;
    return {
      place: { over: 'previous' },
      write: async (place, vet) => {
        if (written) return { bytes: spool.size, recorded: written, sha256: spool.sha256 };
        await vet(spool.path);
        fs.mkdirSync(path.dirname(dr.outputAbs), { recursive: true });
        const bytes = await copyFileAtomic(spool.path, dr.outputAbs, place.placeAt, spool.sha256);
        if (!o.fresh) log.info({ spooled: spool.path }, 'delivered from the spool (no new download)');
        return { bytes, recorded: place, sha256: spool.sha256 };
      },
      writeFailed: async (err) => {
        if (err instanceof CopyMismatchError) {
          await fsp.rm(spool.path, { force: true });
          return this.lose(dr, `the translation in the spool (${spool.path}) changed since it was received`);
        }
        return this.ends.fail(
          dr,
          'output',
          `writing the output failed: ${(err as Error).message}; the translation is kept in the spool (${spool.path}) for the next run; ${writeAdvice(err)}`,
          { willRetry: true, keepDocument: true, countsAttempt: true, retriedKept: dr.flags.resumed },
        );
      },
      billed: () => Promise.resolve(billed()),
      spent: billed,
      cleared: () => fsp.rm(spool.path, { force: true }),
    };
  }

  /**
   * The translation is in the spool of a live worker on another machine (this one cannot reach it):
   * the job is left to that worker, its unit given back so that it can take it up.
   */
  private async leaveToSpool(dr: Drive, holder: string): Promise<'left'> {
    this.ends.releaseSlot(dr);
    await this.deps.shared?.letGo(dr.job);
    const log = this.ends.log(dr.job);
    log.info({ worker: holder }, "the translation waits in another worker's spool: left to it");
    this.deps.report.heldElsewhere(refOfJob(dr.job), holder, log);
    return 'left';
  }

  /** The document is gone (404) before it was downloaded: recorded and reported; uploaded again. */
  private async lose(dr: Drive, message: string): Promise<'again'> {
    this.ends.releaseSlot(dr);
    this.deps.report.lostDownload(dr.job, message);
    dr.job = await this.deps.ledger.lostDownload(dr.job);
    dr.reupload = 'lost-download';
    return 'again';
  }
}

/** The document is gone, but an earlier run wrote its output: recorded done as it is. */
function recoveredOutput(dr: Drive, recovered: { billed: number; bytes: number }): Translation {
  return {
    place: { over: 'previous' },
    write: () =>
      Promise.resolve({ bytes: recovered.bytes, recorded: { placed: dr.outputAbs, beside: false } }),
    writeFailed: (err) => Promise.reject(err),
    billed: () => Promise.resolve(recovered.billed),
    spent: () => recovered.billed,
  };
}

/** How the document method speaks of the ends of a drive (./job-ends.ts). */
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
