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

interface Open<O> {
  owner: O;
  texts: string[];
  bytes: number;
  contexts: Array<readonly string[]>;
}

export class PlannedRequests<O> {
  private readonly open = new Map<string, Open<O>>();

  constructor(
    /** Called for each request cut: its opener, and the characters (code points) of its context. */
    private readonly counted: (owner: O, context: number) => void,
    private readonly limits: BatchLimits = DEFAULT_BATCH_LIMITS,
  ) {}

  /** One run of neighbours of `owner`: its texts as sent, and its neighbours (empty: none needed). */
  add(key: string, owner: O, texts: readonly string[], context: readonly string[]): void {
    let r = this.open.get(key);
    let joined = false;
    for (const t of texts) {
      const size = jsonBytes(t) + 1;
      if (r && requestFull(this.limits, r.texts.length, r.bytes, size)) r = this.close(key);
      if (!r) {
        r = { owner, texts: [], bytes: CONTEXT_BYTES, contexts: [] };
        this.open.set(key, r);
        joined = false;
      }
      // A run split across two requests sends its neighbours with each.
      if (!joined) r.contexts.push(context);
      joined = true;
      r.texts.push(t);
      r.bytes += size;
    }
  }

  /** The last, part-filled request of each key. */
  finish(): void {
    for (const key of [...this.open.keys()]) this.close(key);
  }

  private close(key: string): undefined {
    const r = this.open.get(key);
    if (!r) return undefined;
    this.open.delete(key);
    // The service counts the context's code points.
    this.counted(r.owner, [...contextOf(r.contexts, new Set(r.texts))].length);
    return undefined;
  }
}
