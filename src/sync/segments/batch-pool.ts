import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { CallOptions } from '../../api/transport.js';
import type { TranslateTextResponse } from '../../api/types.js';
import type { NewTextRequest, SegmentMemory, SegmentMemoryRow } from '../../state/types.js';
import type { BilledAttempt, BilledOutcome, CallRecord } from '../run/billed-call.js';
import {
  CONTEXT_BYTES,
  contextOf,
  DEFAULT_BATCH_LIMITS,
  jsonBytes,
  requestFull,
  type BatchLimits,
} from './batches.js';
import type { Coming } from './places-watch.js';
import { requestRecord } from './text-request-record.js';

// The run's text requests, packed across documents (issue 51): the segments that jobs of one target
// language and one set of settings (the request's `settings` key) need are gathered here and sent
// in requests of up to 50 texts and 128 KiB, whichever documents they come from. Each job keeps its
// own record of what it put in a request (text_requests, beside its row): every part is recorded as
// sent before the bytes leave, and is answered, removed or kept as lost with the call, so a crash,
// a lost answer and the bill stay per job as they were. A request's parts are written together,
// one transaction each time (./text-request-record.ts). Requests leave in the order their texts
// came, and each answer is handed back (and remembered by its jobs) as it returns.

/** One job's texts for the pool, with how its attempt records and makes the call. */
export interface PoolPart {
  texts: readonly string[];
  /** The job's neighbouring texts of these texts (empty: none needed). */
  context: readonly string[];
  characters: number;
  attempt: BilledAttempt;
  /** The run's segment memory (the same for every part of a pool): its shares are recorded there. */
  memory: SegmentMemory;
  /**
   * The record of the job's share of a request, for each request its texts go in; `request` names
   * the request (the same for every job's share of it).
   */
  share: (texts: number, characters: number, request: string) => NewTextRequest;
  /** The segment memory's rows of the texts at `indexes`, answered with `translations`. */
  rows: (indexes: readonly number[], translations: readonly string[]) => SegmentMemoryRow[];
  charactersOf: (index: number) => number;
}

/** What a part's texts came back with: one outcome per request they went in. */
export interface PartAnswer {
  /** The texts (indexes in the part) this request held. */
  indexes: number[];
  /** `dropped`: never sent, the job's earlier request failed (it sends nothing more this drive). */
  outcome: BilledOutcome<TranslateTextResponse> | { kind: 'thrown'; error: unknown } | { kind: 'dropped' };
}

interface Waiting {
  part: PoolPart;
  index: number;
  bytes: number;
  /** When it came (ms): a part-filled request waits GATHER_MAX_MS at most. */
  since: number;
  answer: (a: PartAnswer) => void;
}

/** How long a part-filled request waits for more texts once nothing new arrives (ms). */
const GATHER_MS = 20;

/**
 * How long a part-filled request waits at most for jobs still waiting for a place (ms): the places
 * may be held by jobs whose texts wait in the pool, by a document path job waiting for its
 * translation, or by another worker.
 */
const GATHER_MAX_MS = 1_000;

/** Sends one request of the queue's languages and settings. */
export type Send = (
  texts: string[],
  context: string,
  options: Required<CallOptions>,
) => Promise<TranslateTextResponse>;

/** The pool of one run: one queue of texts per settings key. */
export class BatchPool {
  private readonly queues = new Map<string, TextQueue>();
  private readonly sending: PQueue;
  /** Jobs of the run still reading their documents (their texts may join a part-filled request). */
  private readers = 0;

  constructor(
    concurrency: number,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
    /** Whether a job is still on its way to the pool (being prepared, or waiting for its place). */
    private readonly coming: () => Coming = () => 'no',
  ) {
    this.sending = new PQueue({ concurrency: Math.max(1, concurrency) });
  }

  /** A job starts reading its document: answers the call that says it is done (harmless twice). */
  reading(): () => void {
    this.readers++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.readers--;
    };
  }

  /** Texts waiting below which a job gives its place back while its own wait (backpressure). */
  get roomForWaiting(): number {
    return this.limits.texts * this.sending.concurrency * 4;
  }

  /** Texts waiting for their request. */
  get backlog(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.waiting.length;
    return n;
  }

  /**
   * Put a job's texts in the requests of `key` (the languages and settings they are sent with);
   * `onAnswer` gets each request's outcome for them as it returns. Resolves when every text of the
   * part has its outcome.
   */
  async submit(
    key: string,
    send: Send,
    part: PoolPart,
    onAnswer: (a: PartAnswer) => Promise<void>,
  ): Promise<void> {
    let q = this.queues.get(key);
    if (!q)
      this.queues.set(
        key,
        (q = new TextQueue(send, this.limits, this.sending, () =>
          this.readers > 0 ? 'surely' : this.coming(),
        )),
      );
    const handled: Array<Promise<void>> = [];
    let failed: { err: unknown } | undefined;
    const left = new Set(part.texts.map((_, i) => i));
    await new Promise<void>((resolve) => {
      const answer = (a: PartAnswer) => {
        // The first failure is the job's; every share still gets its outcome (answers remembered).
        handled.push(
          onAnswer(a).catch((err: unknown) => {
            failed ??= { err };
            q.drop(part.attempt);
          }),
        );
        for (const i of a.indexes) left.delete(i);
        if (left.size === 0) resolve();
      };
      if (left.size === 0) resolve();
      const since = Date.now();
      q.add(part.texts.map((t, index) => ({ part, index, bytes: jsonBytes(t) + 1, since, answer })));
    });
    await Promise.all(handled);
    if (failed) throw failed.err;
  }
}

class TextQueue {
  readonly waiting: Waiting[] = [];
  /** Jobs (their attempts) with a request in flight: one at a time each, so a crash loses little. */
  private readonly busy = new Set<BilledAttempt>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: Send,
    private readonly limits: BatchLimits,
    private readonly sending: PQueue,
    /** Whether more texts are on their way (a job reading its document, or coming to read it). */
    private readonly gathering: () => Coming,
  ) {}

  add(items: Waiting[]): void {
    this.waiting.push(...items);
    this.pump();
  }

  /**
   * Send what is ready: a full request at once; a part-filled one once no job of the run is still
   * reading its document or on its way to the pool (GATHER_MAX_MS at most) and nothing new came for
   * GATHER_MS.
   */
  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (;;) {
      const next = this.cut();
      if (!next.full) break;
      this.flush(next.items);
    }
    const ready = this.waiting.filter((w) => !this.busy.has(w.part.attempt));
    if (ready.length > 0)
      this.timer = setTimeout(() => {
        const coming = this.gathering();
        const waited = Date.now() - Math.min(...ready.map((w) => w.since));
        if (coming === 'surely' || (coming === 'maybe' && waited < GATHER_MAX_MS)) return this.pump();
        this.flush(this.cut().items);
        this.pump();
      }, GATHER_MS);
  }

  /** The next request's texts, in the order they came (none of a job with a request in flight). */
  private cut(): { items: Waiting[]; full: boolean } {
    const items: Waiting[] = [];
    let bytes = CONTEXT_BYTES;
    let full = false;
    for (const w of this.waiting) {
      if (this.busy.has(w.part.attempt)) continue;
      if (requestFull(this.limits, items.length, bytes, w.bytes)) {
        full = true;
        break;
      }
      items.push(w);
      bytes += w.bytes;
    }
    return { items, full: full || items.length >= this.limits.texts };
  }

  /** A job whose request failed sends nothing more: its waiting texts leave the queue unsent. */
  drop(job: BilledAttempt): void {
    const mine = this.waiting.filter((w) => w.part.attempt === job);
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((w) => w.part.attempt !== job));
    const byPart = new Map<Waiting['answer'], number[]>();
    for (const w of mine) byPart.set(w.answer, [...(byPart.get(w.answer) ?? []), w.index]);
    for (const [answer, indexes] of byPart) answer({ indexes, outcome: { kind: 'dropped' } });
  }

  /** Send `items`: out of the queue, their jobs busy until the answer. */
  private flush(items: Waiting[]): void {
    if (items.length === 0) return;
    const taken = new Set(items);
    for (let i = this.waiting.length - 1; i >= 0; i--)
      if (taken.has(this.waiting[i] as Waiting)) this.waiting.splice(i, 1);
    for (const w of items) this.busy.add(w.part.attempt);
    void this.sending.add(async () => {
      try {
        await this.request(items);
      } finally {
        for (const w of items) this.busy.delete(w.part.attempt);
        this.pump();
      }
    });
  }

  /**
   * One request: every part's share recorded as sent through the first part's billed call, all in
   * one write of the state, and answered in one (./text-request-record.ts).
   */
  private async request(items: Waiting[]): Promise<void> {
    // Each part's texts: their indexes in the part, and their positions in the request.
    const parts = new Map<
      PoolPart,
      { indexes: number[]; positions: number[]; characters: number; answer: Waiting['answer'] }
    >();
    for (const [k, w] of items.entries()) {
      const p = parts.get(w.part) ?? { indexes: [], positions: [], characters: 0, answer: w.answer };
      p.indexes.push(w.index);
      p.positions.push(k);
      p.characters += w.part.charactersOf(w.index);
      parts.set(w.part, p);
    }
    const request = randomUUID();
    const shares = [...parts].map(([part, p]) => ({ part, ...p }));
    const [lead, ...others] = shares as [(typeof shares)[number], ...typeof shares];
    const shared = requestRecord(
      lead.part.memory,
      shares.map((s) => s.part.share(s.indexes.length, s.characters, request)),
    );
    const record: CallRecord = {
      // Every other job's attempt starts (its row counts it) before the request's record is written.
      sent: async () => {
        for (const s of others) await s.part.attempt.joins();
        await shared.sent();
        for (const s of others) s.part.attempt.shared(s.characters);
      },
      notTaken: async () => {
        await shared.notTaken();
        for (const s of others) s.part.attempt.shared(-s.characters);
      },
      lost: () => shared.lost(),
    };
    const texts = items.map((w) => w.part.texts[w.index] as string);
    const context = contextOf(
      shares.map((s) => s.part.context),
      new Set(texts),
    );
    let outcome: PartAnswer['outcome'];
    try {
      outcome = await lead.part.attempt.call({
        send: (o) => this.send(texts, context, o),
        characters: lead.characters,
        record,
      });
    } catch (err) {
      // The state's own failure (not the call's): each job's drive ends with it.
      outcome = { kind: 'thrown', error: err };
    }
    const all = outcome;
    const answers = shares.map((s) =>
      all.kind === 'answered' ? s.positions.map((k) => all.answer.translations[k] ?? NONE) : [],
    );
    if (all.kind === 'answered')
      try {
        // Remembered as the request returns: a crash after this sends none of its texts again.
        await shared.answered(
          shares.map((s, i) =>
            s.part.rows(
              s.indexes,
              (answers[i] ?? []).map((t) => t.text),
            ),
          ),
        );
      } catch (err) {
        outcome = { kind: 'thrown', error: err };
      }
    shares.forEach((s, i) => {
      const sliced: PartAnswer['outcome'] =
        outcome.kind === 'answered'
          ? { kind: 'answered', answer: { translations: answers[i] ?? [] } }
          : outcome;
      s.answer({ indexes: s.indexes, outcome: sliced });
    });
  }
}

/** A text the answer left out: written as missing (the output's checks refuse it). */
const NONE = { detected_source_language: '', text: '' };
