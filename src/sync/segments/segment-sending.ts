import path from 'node:path';
import type { ServiceClient } from '../../api/client.js';
import type { TranslateTextRequest, UploadDocumentRequest } from '../../api/types.js';
import type { SegmentMemory, SegmentMemoryRow, SegmentOrigin } from '../../state/types.js';
import type { FailureKind } from '../events.js';
import type { BilledAttempt, BilledOutcome } from '../run/billed-call.js';
import type { Drive } from '../run/drive.js';
import type { JobEnds, JobOutcome } from '../run/job-ends.js';
import { batchTexts, poolKey, RUN_LIMITS } from './batches.js';
import type { BatchPool, PartAnswer, Send } from './batch-pool.js';
import type { KeyedSegment } from './document-segments.js';

// The sending of one segment job's missing segments (./segment-job.ts): the budget reserved for
// them, the runs of neighbours handed to the run's pool (./batch-pool.ts), which packs them with
// other documents' texts of the same languages and settings into text requests, each job's share
// of a request recorded before it leaves (./text-request-record.ts), each answer remembered in the
// segment memory as it returns; a request that ends otherwise ends the job (SendingStopped,
// RequestFailed).

/** The client call of the segment path. */
export type TextClient = Pick<ServiceClient, 'translateText'>;

/** Why a job ends without being done: recorded on its row and reported. */
export interface Failure {
  kind: FailureKind;
  error: string;
  willRetry: boolean;
  countsAttempt: boolean;
}

export function failure(kind: FailureKind, error: string, willRetry: boolean): Failure {
  return { kind, error, willRetry, countsAttempt: true };
}

/** Nothing more may be sent (a stop, the quota, a refused key, a budget): the outcome is decided. */
export class SendingStopped extends Error {
  constructor(readonly outcome: Promise<JobOutcome>) {
    super('sending stopped');
  }
}

/** A request failed: how the job ends (a lost answer defers it to its turn in this run). */
export class RequestFailed extends Error {
  constructor(
    readonly failure: Failure,
    readonly deferred: boolean,
  ) {
    super(failure.error);
  }
}

/** What a job had answered in this drive. */
export interface Sent {
  /** Characters of the requests answered. */
  characters: number;
  requests: number;
}

export interface SendingDeps {
  pool: BatchPool;
  runId: number;
  base: string;
  /** Tells the pool this job read its document (a part-filled request need not wait for it). */
  doneReading?: () => void;
}

/** One job's text requests in this drive, through the run's pool. */
export class SegmentSending {
  readonly sent: Sent = { characters: 0, requests: 0 };

  constructor(
    private readonly deps: SendingDeps,
    private readonly dr: Drive,
    private readonly ends: JobEnds<Drive>,
    private readonly attempt: BilledAttempt,
    private readonly on: { absPath: string; request: UploadDocumentRequest; memory: SegmentMemory },
  ) {}

  /**
   * Send the segments at `send` (positions in `segments`), packed with other documents' segments of
   * the same languages and settings; each answer goes into `known`.
   */
  async sendAll(
    segments: readonly KeyedSegment[],
    send: readonly number[],
    known: Map<string, string>,
    client: TextClient,
  ): Promise<void> {
    const { request, memory } = this.on;
    // The budget's reservation of what this pass sends (refused: nothing is sent).
    const characters = send.reduce((n, i) => n + (segments[i] as KeyedSegment).characters, 0);
    if (!(await this.attempt.reserve(characters))) throw this.stopped(true);
    const stopped = this.ends.stopped(this.dr);
    if (stopped) throw new SendingStopped(stopped);
    const pool = this.deps.pool;
    // While its texts wait for a request, the job gives its place back (the pool's requests hold
    // the account's places), unless the pool already holds plenty to send.
    if (pool.backlog < pool.roomForWaiting) this.ends.releaseWorker(this.dr);
    // One run of neighbours per part: its context is the neighbours that are not sent with it.
    const runs = batchTexts(segments, send, RUN_LIMITS);
    const document = path.relative(this.deps.base, this.on.absPath).split(path.sep).join('/');
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
            memory,
            share: (texts, chars, request) => ({
              jobId: this.dr.job.id,
              runId: this.deps.runId,
              texts,
              characters: chars,
              request,
            }),
            rows: (indexes, translations) =>
              indexes.map((k, i) => {
                const s = items[k] as KeyedSegment;
                // The source it was translated in, for an export (docs/memory.md).
                const t = { key: s.key, source: s.tagged, translation: translations[i] ?? '', document };
                return memoryRow(this.on.request, this.deps.runId, t, 'service');
              }),
          },
          (a) => this.answered(a, items, known),
        );
      }),
    );
    this.deps.doneReading?.();
    await submitted;
  }

  /** One request's outcome for this job's texts in it: remembered when answered, else the job ends. */
  private async answered(
    a: PartAnswer,
    items: readonly KeyedSegment[],
    known: Map<string, string>,
  ): Promise<void> {
    const out = a.outcome;
    if (out.kind === 'dropped') return;
    if (out.kind === 'thrown') throw out.error;
    // This path withdraws none of its calls (its texts were checked as they were read).
    if (out.kind === 'unsent' || out.kind === 'withdrawn') throw this.stopped();
    if (out.kind === 'taken-over')
      throw new SendingStopped(Promise.resolve(this.ends.takenOver(this.dr, out.err)));
    if (out.kind === 'ended-elsewhere')
      throw new SendingStopped(this.ends.endedElsewhere(this.dr, out.found));
    if (out.kind !== 'answered') throw requestFailed(out);
    // Remembered in the segment memory already, with the request's other shares (./batch-pool.ts).
    const mine = a.indexes.map((k) => items[k] as KeyedSegment);
    this.sent.characters += mine.reduce((n, s) => n + s.characters, 0);
    this.sent.requests++;
    mine.forEach((s, k) => known.set(s.key, out.answer.translations[k]?.text ?? ''));
  }

  /** Uploads stopped before a request left: how the job ends (what was answered is remembered). */
  private stopped(own = false): SendingStopped {
    return new SendingStopped(this.ends.stopped(this.dr, own) ?? Promise.resolve('failed'));
  }
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
export function memoryRow(
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
