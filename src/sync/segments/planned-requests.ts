import {
  CONTEXT_BYTES,
  contextOf,
  DEFAULT_BATCH_LIMITS,
  jsonBytes,
  requestFull,
  type BatchLimits,
} from './batches.js';

// The text requests a plan's segment-path translations will send, cut as the run's pool cuts them
// (./batch-pool.ts), pure: the runs of neighbours of every document of one pool key (languages and
// settings), in plan order, packed across documents into requests of up to 50 texts and 128 KiB,
// each with its `context` (the neighbours of the runs it holds that it does not send itself, within
// CONTEXT_BOUND): what the plan counts. A request is counted for the document whose text opens it,
// as the run sends it through that job's billed call. The run sends the same requests when one
// document's texts fill them at a time; when jobs read at once, a request may leave part-filled.
//
// A run's texts are packed as they are read, before its neighbours after it are known: a request
// is counted once it is full and every run it holds has ended. It keeps no text: whether a
// neighbour is one of its own texts is asked of `sentIn` with its number.

/** Whether the text `context` is sent in the request numbered `request`. */
export type SentIn = (context: string, request: number) => boolean;

interface Request<O> {
  id: number;
  owner: O;
  texts: number;
  bytes: number;
  runs: Array<PlannedRun<O>>;
  full: boolean;
  sentIn: SentIn;
}

/** One run of neighbours of a document: its texts added in order, then its end. */
export class PlannedRun<O> {
  /** Its neighbours (empty: none needed); undefined until it ends. */
  neighbours: readonly string[] | undefined;
  /** The requests holding its texts that wait for its end. */
  readonly waiting: Array<Request<O>> = [];

  constructor(
    private readonly requests: PlannedRequests<O>,
    readonly key: string,
    readonly owner: O,
    readonly sentIn: SentIn,
  ) {}

  /** One of its texts as sent: the number of the request that sends it. */
  add(text: string): number {
    return this.requests.place(this, text);
  }

  end(neighbours: readonly string[]): void {
    this.neighbours = neighbours;
    for (const r of this.waiting.splice(0)) this.requests.count(r);
  }
}

export class PlannedRequests<O> {
  private readonly open = new Map<string, Request<O>>();
  private ids = 0;

  constructor(
    /** Called for each request cut: its opener, and the characters (code points) of its context. */
    private readonly counted: (owner: O, context: number) => void,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
  ) {}

  /** A run of `owner` for the requests of `key`; `sentIn` tells which request sends a text. */
  run(key: string, owner: O, sentIn: SentIn): PlannedRun<O> {
    return new PlannedRun(this, key, owner, sentIn);
  }

  /** The last, part-filled request of each key (every run has ended). */
  finish(): void {
    for (const key of [...this.open.keys()]) this.close(key);
  }

  /** @internal PlannedRun.add: `text` into the open request of its run's key. */
  place(run: PlannedRun<O>, text: string): number {
    const size = jsonBytes(text) + 1;
    let r = this.open.get(run.key);
    if (r && requestFull(this.limits, r.texts, r.bytes, size)) r = this.close(run.key);
    if (!r) {
      const { owner, sentIn } = run;
      r = { id: this.ids++, owner, texts: 0, bytes: CONTEXT_BYTES, runs: [], full: false, sentIn };
      this.open.set(run.key, r);
    }
    // A run split across two requests sends its neighbours with each.
    if (r.runs[r.runs.length - 1] !== run) {
      r.runs.push(run);
      run.waiting.push(r);
    }
    r.texts++;
    r.bytes += size;
    return r.id;
  }

  /** @internal A request counted if it is full and all its runs have ended. */
  count(r: Request<O>): void {
    if (!r.full || r.runs.some((run) => run.neighbours === undefined)) return;
    const parts = r.runs.map((run) => run.neighbours as readonly string[]);
    // The service counts the context's code points.
    const context = contextOf(parts, { has: (c) => r.sentIn(c, r.id) });
    this.counted(r.owner, [...context].length);
  }

  private close(key: string): undefined {
    const r = this.open.get(key);
    if (!r) return undefined;
    this.open.delete(key);
    r.full = true;
    this.count(r);
    return undefined;
  }
}
