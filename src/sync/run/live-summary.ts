import type { Logger } from '../../log/logger.js';
import { describeFinding, type QaResult } from '../../qa/checks.js';
import type { JobRecord } from '../../state/types.js';
import type { FailureKind, JobRef, SyncEvents } from '../events.js';
import type { OutputRef, Plan } from '../plan/types.js';
import { emptySummary, type SyncSummary } from '../summary.js';
import { besidePath } from './edited-output.js';

// The run's summary as it is made (LiveSummary): what a run did, as it happens — the summary's counts
// and lists, the log lines a user reads, and the events the progress view, watch metrics and tests
// follow. The executor, the job lifecycle and its methods report here, the run's ledger
// (./run-ledger.ts) counts its work here; nothing else writes the summary. (Not the `report`
// command's reports of past runs: src/report.)

export function refOfJob(job: JobRecord): JobRef {
  return {
    jobId: job.id,
    mapping: job.mapping,
    file: job.rel_path,
    target: job.target_lang,
    output: job.output_path,
    ...(job.document_id ? { documentId: job.document_id } : {}),
  };
}

/** One (file, target) of a mapping, as the summary's lists name it. */
const unitOf = (r: { mapping: string; file: string; target: string }): string =>
  `${r.mapping}\0${r.file}\0${r.target}`;

/** What the log says of a document uploaded again although an earlier upload may have been billed. */
const UNCONFIRMED_WORDS = {
  crash:
    'an earlier run was stopped between uploading this document and recording the answer: it may have been uploaded (and billed) already; uploading again',
  'lost-answer':
    'the answer to an earlier upload of this document was lost (the service may have accepted and billed it): uploading again, possibly billed twice',
  raced:
    'another worker sent this output at the same moment (both passed the check before sending): possibly billed twice',
};

/** The counts of a run's work that its ledger keeps (./run-ledger.ts). */
export type Counted = 'uploads' | 'translated' | 'resumed' | 'stale-retranslated';

export class LiveSummary {
  private readonly sum: SyncSummary;
  private readonly started = Date.now();
  /** Outputs left to other workers sharing the state. */
  private readonly elsewhere = new Set<string>();
  /** Units another worker failed or took since this run planned them (LiveSummary.notSent). */
  private readonly notSentOutputs = new Set<string>();

  constructor(
    runId: number,
    readonly events: SyncEvents,
    private readonly logger: Logger,
  ) {
    this.sum = emptySummary(runId, false);
  }

  summary(): SyncSummary {
    return { ...this.sum, durationMs: Date.now() - this.started };
  }

  /** A piece of the run's work counted (by the run's ledger, as it records the job). */
  count(what: Counted): void {
    if (what === 'stale-retranslated') {
      this.sum.stale++;
      this.sum.retranslated++;
    } else this.sum[what]++;
  }

  /** What planning found: files, hashes, up-to-date units, files that cannot be translated. */
  planned(plan: Plan): void {
    this.sum.files += plan.files;
    this.sum.hashed += plan.hashed;
    this.sum.unchanged += plan.unchanged;
    this.fileProblems(plan);
  }

  /**
   * Work planned again in this run — a unit re-planned (its source changed, an identical document
   * finished), the tree scanned again for work other workers left — whose files and up-to-date
   * units the first look counted: a unit this run translated is "unchanged" at the second look.
   * Only problems not reported yet are added.
   */
  plannedAgain(plan: Plan): void {
    this.fileProblems(plan);
  }

  /** (mapping, file, reason) of every problem reported: each is reported once per run. */
  private readonly problemsSeen = new Set<string>();

  private firstTime(p: { mapping: string; file: string; reason: string }): boolean {
    const key = `${p.mapping}\0${p.file}\0${p.reason}`;
    if (this.problemsSeen.has(key)) return false;
    this.problemsSeen.add(key);
    return true;
  }

  private fileProblems(plan: Plan): void {
    for (const u of plan.unsupported.filter((x) => this.firstTime(x))) {
      this.sum.unsupported.push(u);
      this.events.emit('file:skipped', {
        mapping: u.mapping,
        file: u.file,
        reason: 'unsupported',
        message: u.message,
      });
    }
    for (const s of plan.skipped.filter((x) => this.firstTime(x))) {
      if (s.reason === 'source-missing') {
        // Not a file left alone: the mapping did nothing, and the run fails for it.
        this.sum.sourceMissing.push(s);
        this.logger.error({ mapping: s.mapping }, s.message);
        this.events.emit('source:missing', { mapping: s.mapping, message: s.message });
        continue;
      }
      this.sum.skipped.push(s);
      this.logger.warn({ mapping: s.mapping, file: s.file, reason: s.reason }, `skipped: ${s.message}`);
      this.events.emit('file:skipped', {
        mapping: s.mapping,
        file: s.file,
        reason: s.reason,
        message: s.message,
      });
    }
  }

  stale(ref: OutputRef): void {
    this.sum.stale++;
    this.events.emit('job:stale', { jobId: 0, ...ref });
  }

  /** A (file, target) that got no job: a conflict, an output that could not be copied, given up. */
  unitFailed(ref: OutputRef, kind: FailureKind, error: string, willRetry: boolean): void {
    const { mapping, file, target } = ref;
    if (this.firstFailure(ref)) this.sum.failed.push({ mapping, file, target, kind, error, willRetry });
    this.logger.error({ mapping, file, target, kind }, `failed: ${error}`);
    this.events.emit('job:failed', { jobId: 0, ...ref, kind, error, willRetry });
  }

  /**
   * Units the summary lists as failed: each once, whatever looks at it again in the run (a plan
   * made again while other workers finish, a job its stop failed and the second look finds failed),
   * and not also as not sent.
   */
  private readonly failedOutputs = new Set<string>();

  private firstFailure(ref: OutputRef): boolean {
    // Two sources of one output (a collision) are two failures.
    const key = unitOf(ref);
    if (this.failedOutputs.has(key)) return false;
    this.failedOutputs.add(key);
    if (this.notSentOutputs.delete(key))
      this.sum.notSent = this.sum.notSent?.filter((x) => unitOf(x) !== key);
    return true;
  }

  jobFailed(job: JobRecord, kind: FailureKind, error: string, willRetry: boolean): void {
    if (this.firstFailure(refOfJob(job))) this.pushFailed(job, kind, error, willRetry);
    this.logger.error(
      {
        mapping: job.mapping,
        file: job.rel_path,
        target: job.target_lang,
        document_id: job.document_id ?? undefined,
        kind,
        will_retry: willRetry,
      },
      `failed: ${error}`,
    );
    this.events.emit('job:failed', { ...refOfJob(job), kind, error, willRetry });
  }

  private pushFailed(job: JobRecord, kind: FailureKind, error: string, willRetry: boolean): void {
    this.sum.failed.push({
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      kind,
      error,
      ...(job.document_id ? { documentId: job.document_id } : {}),
      willRetry,
    });
  }

  /** Another worker sharing the state holds this unit: left to it (not a failure, not billed here). */
  heldElsewhere(ref: JobRef, holder: string, log: Logger): void {
    // Met again at each look while this run waits for the other workers: counted once per output.
    this.elsewhere.add(ref.output);
    this.sum.elsewhere = this.elsewhere.size;
    if (holder === 'done') log.info('translated by another worker meanwhile');
    else log.info({ worker: holder }, 'being translated by another worker: left to it');
    this.events.emit('job:left', { ...ref, uploaded: false });
  }

  /**
   * The run was stopped before this unit finished: no error, nothing recorded (a job keeps its row
   * as it was: an uploaded document its id and key), counted for the closing line.
   */
  unitLeft(ref: JobRef, uploaded: boolean): void {
    this.sum.left++;
    if (uploaded) this.sum.leftUploaded++;
    this.events.emit('job:left', { ...ref, uploaded });
  }

  /** The output was edited by a person: the new translation was put beside it (a conflict). */
  editedKept(job: JobRecord, besideAbs: string, log: Logger): void {
    log.warn(
      { output: job.output_path, new_translation: besideAbs },
      'the output was edited by a person and is kept; the new translation is beside it: locsync outputs keep|take-new <output> resolves it (locsync status lists it)',
    );
    this.events.emit('job:beside', { ...refOfJob(job), beside: besidePath(job.output_path) });
  }

  /** The output checks' verdict on a download (docs/qa.md): a flagged output is listed by the summary. */
  qaChecked(job: JobRecord, result: QaResult, log: Logger): void {
    const findings = result.findings.map(describeFinding);
    if (result.outcome === 'flagged') {
      log.warn({ output: job.output_path, findings }, 'delivered with findings of the output checks');
      (this.sum.flagged ??= []).push({
        mapping: job.mapping,
        file: job.rel_path,
        target: job.target_lang,
        findings,
      });
    }
    this.events.emit('job:qa', { ...refOfJob(job), outcome: result.outcome, findings });
  }

  jobDone(job: JobRecord, billed: number, bytes: number, log: Logger): void {
    // Taken over from a worker that died: this run translated it after all.
    if (this.elsewhere.delete(job.output_path)) this.sum.elsewhere = this.elsewhere.size;
    this.sum.billedCharacters += billed;
    log.info({ billed_characters: billed, bytes, output: job.output_path }, 'translated');
    this.events.emit('job:done', {
      ...refOfJob(job),
      documentId: job.document_id ?? '',
      billedCharacters: billed,
      bytes,
    });
    this.events.emit('billed', {
      characters: billed,
      total: this.sum.billedCharacters,
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
    });
  }

  reused(job: JobRecord, fromJobId: number, from: string, bytes: number): void {
    this.sum.reused++;
    this.logger.info(
      { mapping: job.mapping, file: job.rel_path, target: job.target_lang, from, bytes },
      'identical document already translated: output copied, nothing uploaded',
    );
    this.events.emit('job:reused', { ...refOfJob(job), fromJobId, fromOutput: from });
  }

  /** A source saved again without a change of content: its output kept, nothing uploaded. */
  resaved(job: JobRecord): void {
    this.sum.resaved++;
    this.logger.info(
      { mapping: job.mapping, file: job.rel_path, target: job.target_lang },
      're-saved, content unchanged: output kept, nothing uploaded',
    );
  }

  lostDownload(job: JobRecord, message: string): void {
    const documentId = job.document_id ?? '';
    this.sum.lostDownloads.push({
      mapping: job.mapping,
      file: job.rel_path,
      target: job.target_lang,
      documentId,
    });
    this.logger.warn(
      { mapping: job.mapping, file: job.rel_path, target: job.target_lang, document_id: documentId },
      'the translated document is no longer on the service (a download was interrupted, or it expired): uploading it again (billed again)',
    );
    this.events.emit('job:lost', { ...refOfJob(job), documentId, message });
  }

  /**
   * This worker's upload answered after another worker took its job over (this one stalled past its
   * lease): the answer is not on the job, whose new holder uploads it again. Possibly billed twice;
   * the document id is listed (and logged) so that it can be checked against the service's usage.
   */
  answerTakenOver(ref: OutputRef, documentId: string, holder: string): void {
    const { mapping, file, target } = ref;
    this.sum.unconfirmedUploads.push({ mapping, file, target, cause: 'taken-over', documentId });
    this.logger.warn(
      { mapping, file, target, document_id: documentId, worker: holder },
      'this worker stalled past its lease and another worker took this job over before the upload answered: the answer is not recorded and that worker uploads it again (possibly billed twice)',
    );
  }

  /**
   * A document uploaded again although the service may have accepted an earlier upload: a crash hid
   * its answer (`crash`), or the answer was lost in this run (`lost-answer`). Possibly billed twice.
   */
  unconfirmedUpload(ref: OutputRef, cause: 'crash' | 'lost-answer' | 'raced' = 'crash'): void {
    const { mapping, file, target } = ref;
    this.sum.unconfirmedUploads.push({
      mapping,
      file,
      target,
      ...(cause !== 'crash' ? { cause } : {}),
    });
    this.logger.warn({ mapping, file, target }, UNCONFIRMED_WORDS[cause]);
  }

  /**
   * Another worker failed this output or took it since this run planned it: nothing was sent for
   * it here (./billed-call.ts), said once in the summary; the next run decides it with what that
   * worker recorded.
   */
  notSent(ref: OutputRef, why: string, log: Logger): void {
    const key = unitOf(ref);
    if (this.notSentOutputs.has(key) || this.failedOutputs.has(key)) return;
    this.notSentOutputs.add(key);
    const { mapping, file, target } = ref;
    (this.sum.notSent ??= []).push({ mapping, file, target, why });
    log.warn(`not sent: ${why}`);
    this.events.emit('job:left', { jobId: 0, ...ref, uploaded: false });
  }

  uploadsStopped(reason: string, kind: FailureKind): void {
    this.sum.stoppedReason = reason;
    // A stop by signal is said once by the command that got it; the rest is a reason to act on.
    if (kind === 'stopped') this.sum.interrupted = true;
    else this.logger.error(reason);
    this.events.emit('uploads:stopped', { reason, kind });
  }

  outputDeleted(ref: OutputRef): void {
    this.sum.deletedOutputs.push(ref.output);
    this.logger.info(
      { mapping: ref.mapping, file: ref.file, output: ref.output },
      'source deleted: output deleted',
    );
  }

  sourceRemoved(mapping: string, file: string, outputsDeleted: string[]): void {
    this.sum.removedSources++;
    this.events.emit('file:removed', { mapping, file, outputsDeleted });
  }
}
