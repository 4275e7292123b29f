import path from 'node:path';
import type { ServiceClient } from '../../api/client.js';
import type { TranslateTextRequest, UploadDocumentRequest } from '../../api/types.js';
import { DocumentFormatError, fromTaggedText } from '../../documents/index.js';
import type { Logger } from '../../log/logger.js';
import type { QaResult } from '../../qa/checks.js';
import { QaFailedError } from '../../qa/gate.js';
import type { JobRecord, SegmentMemory, SegmentMemoryRow, SegmentOrigin } from '../../state/types.js';
import type { Recalled } from '../../state/memory-types.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import type { FailureKind } from '../events.js';
import { besidePath, Placement, writtenOf } from '../run/edited-output.js';
import { keepFor } from '../run/replaced-outputs.js';
import { takeReviewed } from '../reviewed-segments.js';
import type { PlaceAt } from '../../util/part-file.js';
import { BilledAttempt, type BilledOutcome } from '../run/billed-call.js';
import type { JobDriverDeps, JobSource } from '../run/job-driver.js';
import { JobEnds, type DriveState, type JobOutcome } from '../run/job-ends.js';
import { sourceHolds } from '../run/source-check.js';
import { writeAdvice } from '../run/written-output.js';
import { batchTexts, DEFAULT_BATCH_LIMITS } from './batches.js';
import type { BatchPool, PartAnswer, Send } from './batch-pool.js';
import { readSegments, segmentPathRefusal, type KeyedSegment } from './document-segments.js';
import type { InFlightSegments, Workers } from './in-flight.js';
import { recallSegments, translationsOf } from './recall.js';
import { jobLeverage } from './job-leverage.js';
import { textRequestRecord } from './text-request-record.js';
import { brokenFinding, segmentProblem, type BrokenSegment } from './broken-tags.js';
import { writeTranslated } from './write-output.js';

// One job of the segment path (method: segments, docs/segments.md), from its record to done: read the
// source's segments with the document layer → look each up in the segment memory → send the missing
// ones to POST /v2/translate in batches, each request recorded before it is sent and its answer
// remembered as it returns → write the output with the document layer → record the job done with
// what it wrote. A text request is billed like an upload: one whose answer was lost may have been
// billed (listed as such); a crash or a stop leaves every answered batch in the memory, so the next
// attempt sends only what is still missing.

/** The client call of the segment path. */
export type TextClient = Pick<ServiceClient, 'translateText'>;

export interface SegmentJobDeps extends JobDriverDeps {
  /** The segment memory of the state (absent: a state that keeps none; segment jobs then fail). */
  memory: SegmentMemory | undefined;
  /** Segments other jobs of this run are buying. */
  inFlight: InFlightSegments;
  /** The run's text requests, packed across its documents. */
  pool: BatchPool;
  /** Gives the job's worker place back (its texts wait in the pool). */
  givePlaceBack?: () => void;
  /** Tells the pool this job read its document (a part-filled request need not wait for it). */
  doneReading?: () => void;
}

export interface SegmentJobFlags {
  /** An earlier run stopped after this job's text requests started (a crash). */
  unconfirmed?: boolean;
  /** The answer of one of its requests was lost in this run: it is its turn to send the rest. */
  lostAnswer?: boolean;
}

/** Why a job ends without being done: recorded on its row and reported. */
interface Failure {
  kind: FailureKind;
  error: string;
  willRetry: boolean;
  countsAttempt: boolean;
}

/** What a job had answered in this drive. */
interface Sent {
  /** Characters of the requests answered. */
  characters: number;
  requests: number;
}

/** Nothing more may be sent (a stop, the quota, a refused key, a budget): the outcome is decided. */
class SendingStopped extends Error {
  constructor(readonly outcome: Promise<JobOutcome>) {
    super('sending stopped');
  }
}

/** A request failed: how the job ends (a lost answer defers it to its turn in this run). */
class RequestFailed extends Error {
  constructor(
    readonly failure: Failure,
    readonly deferred: boolean,
  ) {
    super(failure.error);
  }
}

const MAX_PASSES = 3;

/**
 * A job's segments go to the pool as whole runs of neighbours: the pool cuts the requests. A run that
 * needs context (a short text, a label) takes the nearest neighbours, 250 characters each side: a
 * label's meaning is in the strings around it, not a page away.
 */
const RUN_LIMITS = { ...DEFAULT_BATCH_LIMITS, texts: Infinity, bytes: Infinity, contextChars: 250 };

/** The requests one job's texts can share: same languages, same settings. */
function poolKey(request: UploadDocumentRequest): string {
  return JSON.stringify([
    request.source_lang ?? '',
    request.target_lang,
    request.formality ?? '',
    request.glossary_id ?? '',
    request.style_id ?? '',
    request.segments?.settings ?? '',
  ]);
}

export class SegmentJob {
  /** The drive: the job as last recorded, and its attempt (the text requests it sends). */
  private readonly dr: DriveState;
  private readonly attempt: BilledAttempt;
  private readonly ends: JobEnds;
  private readonly log: Logger;
  private readonly sent: Sent = { characters: 0, requests: 0 };

  constructor(
    private readonly d: SegmentJobDeps,
    job: JobRecord,
    private readonly src: JobSource,
    private readonly flags: SegmentJobFlags,
  ) {
    this.log = d.logger.child({ mapping: job.mapping, file: job.rel_path, target: job.target_lang });
    const reupload = flags.lostAnswer ? 'lost-answer' : flags.unconfirmed ? 'unconfirmed-upload' : undefined;
    this.dr = { job, reupload, holdsSlot: false, worker: undefined };
    this.attempt = new BilledAttempt(d, this.dr, CALL_WORDS, () => this.log);
    this.dr.attempt = this.attempt;
    this.ends = new JobEnds(d, END_WORDS, spendOnFailure);
  }

  private get job(): JobRecord {
    return this.dr.job;
  }

  private set job(job: JobRecord) {
    this.dr.job = job;
  }

  async run(): Promise<JobOutcome> {
    const { job, src } = this;
    const request = src.request;
    const settings = request?.segments?.settings;
    const client = this.d.client as Partial<TextClient>;
    if (!src.absPath || !request || settings === undefined)
      return this.fail(failure('output', 'the source of this job is no longer in the manifest', false));
    if (!this.d.memory || typeof client.translateText !== 'function')
      return this.fail(failure('output', 'this state or connection cannot translate segments', false));
    const stopped = this.ends.stopped(this.dr);
    if (stopped) return stopped;
    const ext = path.extname(job.rel_path).slice(1).toLowerCase();
    const refusal = segmentPathRefusal(ext);
    if (refusal) return this.fail(failure('rejected', refusal, false));
    if (!(await sourceHolds(this.d.files, job.mapping, job.rel_path, job.sha256, src.absPath)))
      return this.ends.supersede(this.dr);
    if (this.flags.unconfirmed) await this.crashedRequests(this.d.memory);
    let read;
    try {
      read = await readSegments(src.absPath, ext, {
        sourceLang: request.source_lang,
        targetLang: request.target_lang,
        settings,
      });
    } catch (err) {
      if (!(err instanceof DocumentFormatError)) throw err;
      return this.fail(failure('rejected', `the source cannot be read: ${err.message}`, false));
    }
    // The texts just read are the ones sent: read from the planned content, or nothing is sent.
    if (!(await sourceHolds(this.d.files, job.mapping, job.rel_path, job.sha256, src.absPath)))
      return this.ends.supersede(this.dr);
    // A person's edit of the output is taken into the memory as reviewed (../reviewed-segments.ts).
    const outputAbs = path.resolve(this.d.base, job.output_path);
    const previous = await this.d.jobs.latestDoneOf(job.output_path);
    const record = previous && previous.id !== job.id ? await this.d.jobs.get(previous.id) : undefined;
    const review = await takeReviewed({
      stateFolder: path.dirname(this.d.spoolDir),
      outputAbs,
      outputRel: job.output_path,
      format: ext,
      doc: read.doc,
      targetLang: this.job.target_lang,
      previous: record,
      overwriteEdits: this.d.overwriteEdits ?? false,
      memory: this.d.memory,
      segments: read.segments,
      row: (key, source, translation) =>
        memoryRow(request, this.d.runId, { key, source, translation }, 'reviewed'),
    });
    let known: Map<string, string>;
    const memory = this.d.memory;
    const recalled = await recallSegments(memory, read.segments);
    try {
      known = await this.translateMissing(read.segments, recalled, memory, client as TextClient, request);
      // Where its segments came from, for the run's summary and the report (./job-leverage.ts).
      await memory.recordLeverage(job.id, this.d.runId, jobLeverage(read.segments, recalled, this.d.runId));
    } catch (err) {
      if (err instanceof SendingStopped) return err.outcome;
      if (err instanceof RequestFailed)
        return err.deferred ? this.ends.defer(this.dr, err.failure.error) : this.fail(err.failure);
      throw err;
    }
    return this.deliver(read, known, ext, { outputAbs, record, review });
  }

  /**
   * Every segment's translation: the memory's, and the missing ones bought (a segment another job
   * of this run, or another worker of the pipeline, is buying is waited for, then read from the
   * memory).
   */
  private async translateMissing(
    segments: readonly KeyedSegment[],
    recalled: ReadonlyMap<string, Recalled>,
    memory: SegmentMemory,
    client: TextClient,
    request: UploadDocumentRequest,
  ): Promise<Map<string, string>> {
    const known = translationsOf(recalled);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const chosen = new Set<string>();
      const waits: Array<Promise<void>> = [];
      const send: number[] = [];
      segments.forEach((s, i) => {
        if (known.has(s.key) || chosen.has(s.key)) return;
        chosen.add(s.key);
        const wait = this.d.inFlight.waitFor(s.key);
        if (wait) waits.push(wait);
        else send.push(i);
      });
      if (send.length === 0 && waits.length === 0) return known;
      if (send.length === 0) this.d.doneReading?.();
      // Claimed in the same tick they were chosen: a job choosing next waits for these.
      const workers = this.workersOf(memory);
      const claim = await this.d.inFlight.claim(
        send.map((i) => (segments[i] as KeyedSegment).key),
        workers,
      );
      try {
        for (const [k, t] of claim.answered) known.set(k, t);
        const own = send.filter((i) => {
          const k = (segments[i] as KeyedSegment).key;
          return !known.has(k) && !claim.elsewhere.has(k);
        });
        if (own.length > 0) await this.sendAll(segments, own, known, memory, client, request);
      } finally {
        await claim.release();
      }
      this.d.doneReading?.();
      if (workers && claim.elsewhere.size > 0)
        await this.awaitOtherWorker([...claim.elsewhere.keys()], workers);
      if (waits.length > 0 || claim.elsewhere.size > 0) {
        await Promise.all(waits);
        const missing = segments.filter((s) => !known.has(s.key)).map((s) => s.key);
        for (const [k, t] of await memory.lookup(missing)) known.set(k, t);
      }
    }
    if (segments.every((s) => known.has(s.key))) return known;
    throw new RequestFailed(
      failure(
        'transient',
        'segments another job was translating stayed untranslated; sent by the next run',
        true,
      ),
      false,
    );
  }

  /** The pipeline's other workers (PostgreSQL), who may be sending this job's segments too. */
  private workersOf(memory: SegmentMemory): Workers | undefined {
    const claims = this.d.shared?.sendingSegments;
    if (!claims) return undefined;
    const warn = (err: unknown) =>
      this.log.warn(
        { err: (err as Error).message },
        'segments sent could not be given back in the state: other workers may wait for them until this one stops',
      );
    return { claims, memory, warn };
  }

  /**
   * Segments another worker of the pipeline is sending: waited for (the caller then reads them from
   * the memory, or claims them again when that worker gave them back unanswered or died).
   */
  private async awaitOtherWorker(keys: readonly string[], workers: Workers): Promise<void> {
    const stopped = () => this.d.control.uploadsStopped !== undefined;
    const stalled = await this.d.inFlight.awaitElsewhere(keys, workers, stopped);
    const stop = stopped() && this.ends.stopped(this.dr);
    if (stop) throw new SendingStopped(stop);
    if (stalled)
      throw new RequestFailed(
        failure(
          'transient',
          `segments another worker (${stalled}) is sending got no answer for a long time; sent by the next run`,
          true,
        ),
        false,
      );
  }

  /**
   * Send the segments at `send` (positions in `segments`) through the run's pool (./batch-pool.ts):
   * packed with other documents' segments of the same languages and settings, each job's share of a
   * request recorded before it leaves, each answer remembered as it returns.
   */
  private async sendAll(
    segments: readonly KeyedSegment[],
    send: readonly number[],
    known: Map<string, string>,
    memory: SegmentMemory,
    client: TextClient,
    request: UploadDocumentRequest,
  ): Promise<void> {
    // The budget's reservation of what this pass sends (refused: nothing is sent).
    const characters = send.reduce((n, i) => n + (segments[i] as KeyedSegment).characters, 0);
    if (!(await this.attempt.reserve(characters))) throw this.sendingStopped(true);
    const stopped = this.ends.stopped(this.dr);
    if (stopped) throw new SendingStopped(stopped);
    const pool = this.d.pool;
    // While its texts wait for a request, the job gives its place back (the pool's requests hold
    // the account's places), unless the pool already holds plenty to send.
    if (pool.backlog < pool.roomForWaiting) this.d.givePlaceBack?.();
    // One run of neighbours per part: its context is the neighbours that are not sent with it.
    const runs = batchTexts(segments, send, RUN_LIMITS);
    const document = path
      .relative(this.d.base, this.src.absPath ?? '')
      .split(path.sep)
      .join('/');
    const sendText: Send = (texts, context, o) =>
      client.translateText(
        textRequest(
          request,
          texts.map((tagged) => ({ tagged })),
          context,
        ),
        o,
      );
    const submitted = Promise.all(
      runs.map((run) => {
        const items = run.members.map((i) => segments[i] as KeyedSegment);
        return pool.submit(
          poolKey(request),
          sendText,
          {
            texts: items.map((s) => s.tagged),
            context: run.neighbours,
            characters: items.reduce((n, s) => n + s.characters, 0),
            charactersOf: (k) => (items[k] as KeyedSegment).characters,
            attempt: this.attempt,
            record: (texts, chars) =>
              textRequestRecord(memory, {
                jobId: this.job.id,
                runId: this.d.runId,
                texts,
                characters: chars,
              }),
          },
          (a) => this.answered(a, items, known, memory, request, document),
        );
      }),
    );
    this.d.doneReading?.();
    await submitted;
  }

  /** One request's outcome for this job's texts in it: remembered when answered, else the job ends. */
  private async answered(
    a: PartAnswer,
    items: readonly KeyedSegment[],
    known: Map<string, string>,
    memory: SegmentMemory,
    request: UploadDocumentRequest,
    document: string,
  ): Promise<void> {
    const out = a.outcome;
    if (out.kind === 'dropped') return;
    if (out.kind === 'thrown') throw out.error;
    // This path withdraws none of its calls (its texts were checked as they were read).
    if (out.kind === 'unsent' || out.kind === 'withdrawn') throw this.sendingStopped();
    if (out.kind === 'taken-over')
      throw new SendingStopped(Promise.resolve(this.ends.takenOver(this.dr, out.err)));
    if (out.kind === 'ended-elsewhere')
      throw new SendingStopped(this.ends.endedElsewhere(this.dr, out.found));
    if (out.kind !== 'answered') throw requestFailed(out);
    const mine = a.indexes.map((k) => items[k] as KeyedSegment);
    this.sent.characters += mine.reduce((n, s) => n + s.characters, 0);
    this.sent.requests++;
    const rows: SegmentMemoryRow[] = mine.map((s, k) =>
      memoryRow(
        request,
        this.d.runId,
        {
          key: s.key,
          source: s.tagged,
          translation: out.answer.translations[k]?.text ?? '',
          // The source it was translated in, for an export (docs/memory.md).
          document,
        },
        'service',
      ),
    );
    // Remembered as each request returns: a crash after this never sends these segments again.
    await memory.textRequestAnswered(a.recordId as number, rows);
    for (const r of rows) known.set(r.key, r.translation);
  }

  /** Uploads stopped before a request left: how the job ends (what was answered is remembered). */
  private sendingStopped(own = false): SendingStopped {
    return new SendingStopped(this.ends.stopped(this.dr, own) ?? Promise.resolve('failed'));
  }

  /** Requests an earlier run sent and never saw answered: maybe billed (the executor listed the job). */
  private async crashedRequests(memory: SegmentMemory): Promise<void> {
    const lost = await memory.unansweredOf(this.job.id);
    for (const r of lost) await memory.textRequestLost(r.id);
    if (lost.length > 0)
      this.log.warn(
        { requests: lost.length, characters: lost.reduce((n, r) => n + r.characters, 0) },
        'text requests of an earlier run got no recorded answer (it stopped): the service may have billed them; their segments are sent again',
      );
  }

  /** Write the output with the document layer, put it in place, record the job done. */
  private async deliver(
    read: Awaited<ReturnType<typeof readSegments>>,
    known: Map<string, string>,
    ext: string,
    out: { outputAbs: string; record: JobRecord | undefined; review: TakenReview },
  ): Promise<JobOutcome> {
    const keyOf = new Map(read.segments.map((s) => [s.segment.id, s]));
    const { outputAbs, review } = out;
    // An edit taken into the memory is written over (the output carries its wording), unless the
    // output changed again since it was taken; an edit that cannot be is left alone (beside it).
    const placement = review.beside
      ? besideOnly(outputAbs)
      : new Placement(
          outputAbs,
          review.takenAs ?? out.record,
          this.d.overwriteEdits ?? false,
          keepFor({ base: this.d.base, stateFolder: path.dirname(this.d.spoolDir) }, this.d.runId, {
            outputRel: this.job.output_path,
            target: this.job.target_lang,
            sourceAbs: this.src.absPath,
          }),
        );
    let qa: QaResult | undefined;
    const write = (translations: ReadonlyMap<string, string>, placeAt: PlaceAt) => {
      // Translations that broke their segment's placeholders, inline tags or ICU structure: refused.
      const broken: BrokenSegment[] = [];
      return writeTranslated({
        doc: read.doc,
        translationOf: (s) => {
          const k = keyOf.get(s.id);
          const t = k && translations.get(k.key);
          if (t === undefined || t === '') return undefined;
          const problem = segmentProblem(t, s, this.job.target_lang);
          if (problem) broken.push({ where: s.where, ...problem });
          return fromTaggedText(t, s);
        },
        outputAbs,
        format: ext,
        targetLang: this.job.target_lang,
        forms: review.forms,
        valuesChecked: true,
        placeAt,
        vet: async (partPath) => {
          if (broken.length > 0) await this.d.gate.refuse(this.job, partPath, brokenFinding(broken));
          qa = await this.d.gate.vet(this.job, this.src.absPath, partPath);
        },
      });
    };
    let bytes: number;
    // What the job records as written: the file beside the output when a person's wording stays in it.
    let recorded = placement;
    try {
      // A person's wording of a segment whose source changed stays in the output (../reviewed-segments.ts);
      // the machine's translation of it goes beside it, for a person to decide.
      bytes = await write(review.held.size ? new Map([...known, ...review.held]) : known, placement.placeAt);
      if (review.held.size) {
        recorded = besideOnly(outputAbs);
        bytes = await write(known, recorded.placeAt);
      }
    } catch (err) {
      if (err instanceof QaFailedError) {
        // What failed the checks is not written again: its segments are bought again by a retry
        // (--retry-failed-qa, --retranslate) or by another file that has them.
        await this.d.memory?.forgetAnswers(read.segments.map((s) => s.key));
        this.d.report.qaChecked(this.job, err.result, this.log);
        return this.fail(failure('qa-failed', err.message, false));
      }
      // Every segment is in the memory: the next run writes it without sending anything.
      return this.fail({
        kind: 'output',
        error: `writing the output failed: ${(err as Error).message}; ${writeAdvice(err)}`,
        willRetry: true,
        countsAttempt: true,
      });
    }
    const written = await writtenOf(recorded.placed).catch(() => undefined);
    const billed = await (this.d.memory as SegmentMemory).billedOf(this.job.id);
    this.job = await this.d.ledger.done(this.job, billed, written);
    await review.delivered(this.job.id, known);
    if (qa) {
      await this.d.gate.record(this.job, qa);
      this.d.report.qaChecked(this.job, qa, this.log);
    }
    if (recorded.beside) this.d.report.editedKept(this.job, recorded.placed, this.log);
    await this.d.guard?.settle(this.job.id, this.sent.characters);
    this.log.info(
      { segments: read.segments.length, requests: this.sent.requests, characters: this.sent.characters },
      'segments translated',
    );
    this.d.report.jobDone(this.job, this.sent.characters, bytes, this.log);
    return 'done';
  }

  private fail(f: Failure): Promise<'failed'> {
    return this.ends.fail(this.dr, f.kind, f.error, {
      willRetry: f.willRetry,
      keepDocument: false,
      countsAttempt: f.countsAttempt,
    });
  }
}

/** How the segment path speaks of its billed calls and of the ends of a drive. */
const CALL_WORDS = { leaving: 'sending segments', afterQuota: 'Nothing more is sent this run.' };
const END_WORDS = {
  superseded:
    'the source changed after this job was planned: nothing sent; its new content is planned instead',
  stoppedAfterSending:
    'the run was stopped while segments were being sent; the rest are sent by the next run',
  deferred:
    'the answer to a text request was lost (the service may have translated and billed it): its segments are sent again later in this run',
};

/**
 * The state records every text request with its characters: a job stopped or failed partway has
 * spent what its requests may have billed (answered or not), and later calls of the run count it.
 */
async function spendOnFailure(guard: SpendGuard, dr: DriveState): Promise<void> {
  const spent = dr.attempt?.spent ?? 0;
  if (spent > 0) await guard.settle(dr.job.id, spent);
  else guard.release(dr.job.id);
}

/** What a failed request means for the job (the client retried what it safely could). */
function requestFailed(out: Extract<BilledOutcome<unknown>, { failure: unknown }>): RequestFailed {
  const f = out.failure;
  const error =
    f.verdict === 'maybe-taken'
      ? `a text request failed after it was sent: the service may have translated (and billed) it; ${
          f.again ? 'its segments are sent again later in this run' : 'not sent again in this run'
        }: ${f.message}`
      : `a text request failed: ${f.message}`;
  return new RequestFailed(
    { kind: f.kind, error, willRetry: f.willRetry, countsAttempt: f.countsAttempt },
    f.again === true,
  );
}

type TakenReview = Awaited<ReturnType<typeof takeReviewed>>;

/** Where a translation goes beside the output, whatever the output holds. */
function besideOnly(outputAbs: string): { placed: string; beside: boolean; placeAt: PlaceAt } {
  return {
    placed: besidePath(outputAbs),
    beside: true,
    placeAt: (dest) => Promise.resolve(besidePath(dest)),
  };
}

function failure(kind: FailureKind, error: string, willRetry: boolean): Failure {
  return { kind, error, willRetry, countsAttempt: true };
}

/** The request of one batch: the job's languages and settings, inline formatting as xml tags. */
export function textRequest(
  request: UploadDocumentRequest,
  items: ReadonlyArray<{ tagged: string }>,
  context: string,
): TranslateTextRequest {
  return {
    text: items.map((s) => s.tagged),
    target_lang: request.target_lang,
    ...(request.source_lang ? { source_lang: request.source_lang } : {}),
    ...(request.formality ? { formality: request.formality } : {}),
    ...(request.glossary_id ? { glossary_id: request.glossary_id } : {}),
    ...(request.style_id ? { style_id: request.style_id } : {}),
    ...(context ? { context } : {}),
    tag_handling: 'xml',
    // A segment is one unit already (a paragraph, a cell): its lines are not sentences of their own.
    split_sentences: 'nonewlines',
  };
}

/** A segment memory row of a job's languages and settings. */
function memoryRow(
  request: UploadDocumentRequest,
  runId: number,
  t: { key: string; source: string; translation: string; document?: string },
  origin: SegmentOrigin,
): SegmentMemoryRow {
  return {
    ...t,
    source_lang: request.source_lang?.toLowerCase() ?? null,
    target_lang: request.target_lang.toLowerCase(),
    settings: request.segments?.settings ?? '',
    origin,
    run_id: runId,
  };
}
