import path from 'node:path';
import { DocumentFormatError } from '../../documents/index.js';
import type { Logger } from '../../log/logger.js';
import type { Recalled } from '../../state/memory-types.js';
import type { FileInventory, JobRecord, SegmentMemory } from '../../state/types.js';
import { takeReviewed } from '../reviewed-segments.js';
import { BilledAttempt, type BilledCallDeps } from '../run/billed-call.js';
import type { DocumentClient } from '../run/document-method.js';
import type { JobEnds, JobOutcome } from '../run/job-ends.js';
import type { Drive, JobSource } from '../run/job-lifecycle.js';
import { previousDelivery, type DeliveryDeps, type Translation } from '../run/output-delivery.js';
import { sourceHolds } from '../run/source-check.js';
import type { BatchPool } from './batch-pool.js';
import { readSegments, segmentPathRefusal, type KeyedSegment } from './document-segments.js';
import type { InFlightSegments, Workers } from './in-flight.js';
import { jobLeverage } from './job-leverage.js';
import { recallSegments, translationsOf } from './recall.js';
import { segmentTranslation } from './segment-output.js';
import {
  failure,
  memoryRow,
  RequestFailed,
  SegmentSending,
  SendingStopped,
  type Failure,
  type TextClient,
} from './segment-sending.js';

export type { TextClient };

// One job of the segment method (./segment-method.ts, docs/segments.md), from its record to its
// translation: read the source's segments with the document layer → take a person's edit of the
// output into the memory as reviewed → look each segment up in the segment memory → send the
// missing ones to POST /v2/translate (./segment-sending.ts: each request recorded before it is
// sent, its answer remembered as it returns) → hand the document written from them to the shared
// delivery step (./segment-output.ts, ../run/output-delivery.ts). A text request is billed like an
// upload: one whose answer was lost may have been billed (listed as such); a crash or a stop leaves
// every answered batch in the memory, so the next attempt sends only what is still missing.

export interface SegmentJobDeps extends BilledCallDeps, DeliveryDeps {
  client: DocumentClient;
  files: FileInventory;
  /** The segment memory of the state (absent: a state that keeps none; segment jobs then fail). */
  memory: SegmentMemory | undefined;
  /** Segments other jobs of this run are buying. */
  inFlight: InFlightSegments;
  /** The run's text requests, packed across its documents. */
  pool: BatchPool;
  /** Tells the pool this job read its document (a part-filled request need not wait for it). */
  doneReading?: () => void;
}

const MAX_PASSES = 3;

export class SegmentJob {
  /** The attempt of this drive: the text requests it sends. */
  private readonly attempt: BilledAttempt;
  private readonly log: Logger;

  constructor(
    private readonly deps: SegmentJobDeps,
    private readonly dr: Drive,
    private readonly src: JobSource,
    private readonly ends: JobEnds<Drive>,
  ) {
    const job = dr.job;
    this.log = deps.logger.child({ mapping: job.mapping, file: job.rel_path, target: job.target_lang });
    this.attempt = new BilledAttempt(deps, dr, CALL_WORDS, () => this.log);
    dr.attempt = this.attempt;
  }

  private get job(): JobRecord {
    return this.dr.job;
  }

  async translate(): Promise<Translation | JobOutcome> {
    const { job, src, deps } = this;
    const request = src.request;
    const settings = request?.segments?.settings;
    const client = deps.client as Partial<TextClient>;
    if (!src.absPath || !request || settings === undefined)
      return this.fail(failure('output', 'the source of this job is no longer in the manifest', false));
    const memory = deps.memory;
    if (!memory || typeof client.translateText !== 'function')
      return this.fail(failure('output', 'this state or connection cannot translate segments', false));
    const stopped = this.ends.stopped(this.dr);
    if (stopped) return stopped;
    const ext = path.extname(job.rel_path).slice(1).toLowerCase();
    const refusal = segmentPathRefusal(ext);
    if (refusal) return this.fail(failure('rejected', refusal, false));
    if (!(await sourceHolds(deps.files, job.mapping, job.rel_path, job.sha256, src.absPath)))
      return this.ends.supersede(this.dr);
    if (this.dr.flags.unconfirmed) await this.crashedRequests(memory);
    let read;
    try {
      read = await readSegments(src.absPath, ext, {
        sourceLang: request.source_lang,
        targetLang: request.target_lang,
        settings,
        read: request.segments?.read,
      });
    } catch (err) {
      if (!(err instanceof DocumentFormatError)) throw err;
      return this.fail(failure('rejected', `the source cannot be read: ${err.message}`, false));
    }
    // The texts just read are the ones sent: read from the planned content, or nothing is sent.
    if (!(await sourceHolds(deps.files, job.mapping, job.rel_path, job.sha256, src.absPath)))
      return this.ends.supersede(this.dr);
    // A person's edit of the output is taken into the memory as reviewed (../reviewed-segments.ts).
    const record = await previousDelivery(deps.jobs, job);
    const review = await takeReviewed({
      stateFolder: path.dirname(deps.spoolDir),
      outputAbs: this.dr.outputAbs,
      outputRel: job.output_path,
      format: ext,
      read: request.segments?.read,
      doc: read.doc,
      targetLang: job.target_lang,
      previous: record,
      overwriteEdits: deps.overwriteEdits ?? false,
      memory,
      segments: read.segments,
      row: (key, source, translation) =>
        memoryRow(request, deps.runId, { key, source, translation }, 'reviewed'),
    });
    const sending = new SegmentSending(deps, this.dr, this.ends, this.attempt, {
      absPath: src.absPath,
      request,
      memory,
    });
    let known: Map<string, string>;
    const recalled = await recallSegments(memory, read.segments);
    try {
      known = await this.translateMissing(read.segments, recalled, memory, client as TextClient, sending);
      // Where its segments came from, for the run's summary and the report (./job-leverage.ts).
      await memory.recordLeverage(job.id, deps.runId, jobLeverage(read.segments, recalled, deps.runId));
    } catch (err) {
      if (err instanceof SendingStopped) return err.outcome;
      if (err instanceof RequestFailed)
        return err.deferred ? this.ends.defer(this.dr, err.failure.error) : this.fail(err.failure);
      throw err;
    }
    return segmentTranslation({ memory, gate: deps.gate }, this.dr, this.ends, this.log, {
      read,
      known,
      format: ext,
      review,
      record,
      sent: sending.sent,
    });
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
    sending: SegmentSending,
  ): Promise<Map<string, string>> {
    const known = translationsOf(recalled);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const chosen = new Set<string>();
      const waits: Array<Promise<void>> = [];
      const send: number[] = [];
      segments.forEach((s, i) => {
        if (known.has(s.key) || chosen.has(s.key)) return;
        chosen.add(s.key);
        const wait = this.deps.inFlight.waitFor(s.key);
        if (wait) waits.push(wait);
        else send.push(i);
      });
      if (send.length === 0 && waits.length === 0) return known;
      if (send.length === 0) this.deps.doneReading?.();
      // Claimed in the same tick they were chosen: a job choosing next waits for these.
      const workers = this.workersOf(memory);
      const claim = await this.deps.inFlight.claim(
        send.map((i) => (segments[i] as KeyedSegment).key),
        workers,
      );
      try {
        for (const [k, t] of claim.answered) known.set(k, t);
        const own = send.filter((i) => {
          const k = (segments[i] as KeyedSegment).key;
          return !known.has(k) && !claim.elsewhere.has(k);
        });
        if (own.length > 0) await sending.sendAll(segments, own, known, client);
      } finally {
        await claim.release();
      }
      this.deps.doneReading?.();
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
    const claims = this.deps.shared?.sendingSegments;
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
    const stopped = () => this.deps.control.uploadsStopped !== undefined;
    const stalled = await this.deps.inFlight.awaitElsewhere(keys, workers, stopped);
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

  /** Requests an earlier run sent and never saw answered: maybe billed (the executor listed the job). */
  private async crashedRequests(memory: SegmentMemory): Promise<void> {
    const lost = await memory.unansweredOf(this.job.id);
    await memory.textRequestsLost(lost.map((r) => r.id));
    if (lost.length > 0)
      this.log.warn(
        { requests: lost.length, characters: lost.reduce((n, r) => n + r.characters, 0) },
        'text requests of an earlier run got no recorded answer (it stopped): the service may have billed them; their segments are sent again',
      );
  }

  private fail(f: Failure): Promise<'failed'> {
    return this.ends.fail(this.dr, f.kind, f.error, {
      willRetry: f.willRetry,
      keepDocument: false,
      countsAttempt: f.countsAttempt,
    });
  }
}

/** How the segment path speaks of its billed calls (../run/billed-call.ts). */
const CALL_WORDS = {
  leaving: 'sending segments',
  afterStop: 'Nothing more is sent this run.',
  call: "document's text requests",
};
