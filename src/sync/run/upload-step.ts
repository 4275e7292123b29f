import type { ServiceClient } from '../../api/client.js';
import { registerSecret } from '../../log/secrets.js';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { FileInventory } from '../../state/types.js';
import { sha256File } from '../plan/list-sources.js';
import { BilledAttempt, type BilledCallDeps } from './billed-call.js';
import type { JobSource } from './drive.js';
import type { DriveState, JobEnds, JobEndsDeps } from './job-ends.js';
import type { WorkerPlacePool } from './places.js';
import { refOfJob } from './live-summary.js';
import { sourceHolds } from './source-check.js';

// The upload step of the document method (./document-method.ts): one upload of a job's
// document, from the checks right before it (uploads stopped, the source still the same, a worker
// place and a download slot) through the billed call (./billed-call.ts: the budget, the send, its
// record, what a failure means) to the record of its answer, and what happened: 'again' (uploaded,
// id and key recorded: the method collects it next), or how the job ended unsent or failed
// (./job-ends.ts, shared with the segment path).

/** What the upload step uses of the document method's dependencies (./document-method.ts). */
export interface UploadStepDeps extends BilledCallDeps, JobEndsDeps {
  client: Pick<ServiceClient, 'uploadDocument'>;
  files: FileInventory;
  places: WorkerPlacePool;
}

/**
 * What happened to the upload: 'again' (uploaded, id and key recorded), or how the job ended without
 * a recorded document (`deferred`: its answer was lost, see JobOutcome in ./job-ends.ts).
 */
export type UploadOutcome = 'again' | 'failed' | 'superseded' | 'left' | 'deferred';

/** How the document path speaks of its billed call. */
const WORDS = {
  leaving: 'uploading',
  afterStop: 'No more uploads this run; documents already uploaded are still collected.',
  call: 'upload',
};

export class UploadStep<D extends DriveState> {
  constructor(
    private readonly deps: UploadStepDeps,
    private readonly ends: JobEnds<D>,
  ) {}

  /** Upload the job's document and record its id and key. */
  async upload(dr: D, src: JobSource): Promise<UploadOutcome> {
    // A new attempt: the last one (a lost download's upload) has its record.
    dr.attempt = undefined;
    const stopped = this.ends.stopped(dr);
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
    dr.worker ??= await this.deps.places.take();
    if (!dr.holdsSlot) {
      await this.deps.slots.acquire();
      dr.holdsSlot = true;
    }
    // Right before the upload: the file must still hold the content this job records.
    if (!(await sourceHolds(this.deps.files, dr.job.mapping, dr.job.rel_path, dr.job.sha256, src.absPath)))
      return this.ends.supersede(dr);
    const estimate = this.deps.guard ? await this.deps.guard.estimate(dr.job, src.absPath) : 0;
    // Uploads may have stopped while this job waited for a place: none starts after that.
    const stoppedSince = this.ends.stopped(dr);
    if (stoppedSince) return stoppedSince;
    const attempt = new BilledAttempt(this.deps, dr, WORDS, () => this.ends.log(dr.job));
    dr.attempt = attempt;
    // The cap refuses this upload itself (a repeat too): failed as the budget's.
    if (!(await attempt.reserve(estimate))) return this.ends.stopped(dr, true) ?? 'failed';
    const absPath = src.absPath;
    const request = src.request;
    const out = await attempt.call({
      send: (o) => this.deps.client.uploadDocument(absPath, request, o),
      // As it leaves its body is open: its bytes must be the job's (the planned sha256), or none leave.
      sendable: () => sourceHolds(this.deps.files, dr.job.mapping, dr.job.rel_path, dr.job.sha256, absPath),
      characters: estimate,
    });
    switch (out.kind) {
      case 'withdrawn':
        return this.ends.supersede(dr);
      case 'ended-elsewhere':
        return this.ends.endedElsewhere(dr, out.found);
      case 'unsent':
        return this.ends.stopped(dr) ?? 'failed';
      case 'taken-over':
        if (out.answer) return this.answerTakenOver(dr, out.answer.document_id, out.err);
        return this.ends.takenOver(dr, out.err);
      case 'maybe-taken': {
        const f = out.failure;
        const error = `the upload failed after the document was sent: the service may have accepted (and billed) it; ${
          f.again ? 'uploaded again later in this run' : 'not retried in this run'
        }: ${f.message}`;
        if (f.again) return this.ends.defer(dr, error);
        return this.ends.fail(dr, f.kind, error, {
          willRetry: f.willRetry,
          keepDocument: false,
          countsAttempt: f.countsAttempt,
        });
      }
      case 'not-taken':
      case 'failed': {
        const f = out.failure;
        return this.ends.fail(dr, f.kind, f.message, {
          willRetry: f.willRetry,
          keepDocument: false,
          countsAttempt: f.countsAttempt,
        });
      }
      case 'answered':
        break;
    }
    const res = out.answer;
    // Record id+key the moment the upload answers.
    registerSecret(res.document_key);
    try {
      dr.job = await this.deps.ledger.uploaded(dr.job, res.document_id, res.document_key);
    } catch (err) {
      if (!(err instanceof HeldByOtherWorkerError)) throw err;
      this.deps.guard?.possiblyBilled(dr.job.id);
      return this.answerTakenOver(dr, res.document_id, err);
    }
    this.deps.report.events.emit('job:uploaded', { ...refOfJob(dr.job), documentId: res.document_id });
    this.ends.log(dr.job).info('uploaded');
    dr.reupload = undefined;
    return 'again';
  }

  /**
   * The upload answered after another worker took the job over: the answer cannot be recorded on
   * the job (that worker found its upload unanswered, counted it in the job's unconfirmed uploads and
   * uploads it again). Its document was billed (the budget counts it so): listed with its id.
   */
  private answerTakenOver(dr: D, documentId: string, err: HeldByOtherWorkerError): 'left' {
    this.deps.report.answerTakenOver(refOfJob(dr.job), documentId, err.holder);
    return this.ends.takenOver(dr, err);
  }
}
