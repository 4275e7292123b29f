import { setTimeout as sleep } from 'node:timers/promises';
import type { SegmentClaims, SegmentMemory } from '../../state/types.js';

// Segments being bought right now, by memory key: a segment that several documents hold is sent by
// the first job that needs it; the others wait for its answer and then read it from the segment
// memory (identical segments across documents are sent once). The jobs of a run share this object;
// workers of one pipeline on PostgreSQL also claim the keys in the state (`Workers`), so that two
// machines translating documents that share a paragraph at the same moment pay for it once.

/** The other workers of the pipeline, as a job sees them (absent: one process per state). */
export interface Workers {
  claims: SegmentClaims;
  memory: SegmentMemory;
  /** A claim could not be given back (other workers wait for it until the stall or this worker's end). */
  warn: (err: unknown) => void;
}

/** How often a job waiting for another worker's segments looks for their answers (ms). */
const POLL_MS = 200;

/** What a job may send after claiming, and how it gives its claims back. */
export interface SegmentClaim {
  /** Keys another live worker of the pipeline is sending: waited for (`awaitElsewhere`), not sent. */
  elsewhere: Map<string, string>;
  /** Translations of claimed keys another worker put in the memory just before: not sent either. */
  answered: Map<string, string>;
  /** Give back what this job claimed (in this process and for this worker); never throws. */
  release: () => Promise<void>;
}

export class InFlightSegments {
  private readonly pending = new Map<string, Promise<void>>();

  /**
   * @param stallMs a job waiting for another worker's segments stops waiting when none of them was
   *   answered for this long while their sender lives (the run's timing: 5 minutes)
   */
  constructor(private readonly stallMs: number) {}

  /** The answer this key is waiting for, when another job of this process is sending it. */
  waitFor(key: string): Promise<void> | undefined {
    return this.pending.get(key);
  }

  /**
   * These keys are about to be sent by the caller. They are claimed in this process before the
   * call returns its promise (in the tick the caller chose them: a job choosing next waits for
   * them), then for this worker among the pipeline's workers: the keys another worker is sending
   * come back in `elsewhere`, those it answered before giving them back in `answered`.
   */
  async claim(keys: readonly string[], workers: Workers | undefined): Promise<SegmentClaim> {
    const local = this.claimHere(keys);
    let mine: string[] = [];
    const release = async () => {
      const given = mine;
      mine = [];
      if (given.length > 0) await workers?.claims.release(given).catch(workers.warn);
      local();
    };
    if (!workers || keys.length === 0) return { elsewhere: new Map(), answered: new Map(), release };
    try {
      const elsewhere = await workers.claims.claim(keys);
      mine = keys.filter((k) => !elsewhere.has(k));
      // A worker writes its answers before it gives their keys back: looked up after claiming, the
      // memory has every answer of a key that was given back before this claim.
      const answered = await workers.memory.lookup(mine);
      return { elsewhere, answered, release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /**
   * Wait for segments another worker is sending: until each is answered in the memory, or none is
   * held by a live worker any more (given back unanswered, or its worker died: the caller claims
   * them again), or `stopped` says so. Answers the worker still holding them when none was answered
   * for `stallMs` while it lives (the caller gives up on them for now).
   */
  async awaitElsewhere(
    keys: readonly string[],
    workers: Workers,
    stopped: () => boolean,
  ): Promise<string | undefined> {
    let left = [...keys];
    let since = Date.now();
    for (;;) {
      const answered = await workers.memory.lookup(left);
      if (answered.size > 0) since = Date.now();
      left = left.filter((k) => !answered.has(k));
      if (left.length === 0 || stopped()) return undefined;
      const held = await workers.claims.heldElsewhere(left);
      if (held.size === 0) return undefined;
      if (Date.now() - since >= this.stallMs) return [...held.values()][0];
      await sleep(POLL_MS);
    }
  }

  /** Claimed in this process: answers the call that ends their wait (sent or not). */
  private claimHere(keys: readonly string[]): () => void {
    let end = () => {};
    const p = new Promise<void>((resolve) => (end = resolve));
    const mine = keys.filter((k) => !this.pending.has(k));
    for (const k of mine) this.pending.set(k, p);
    return () => {
      for (const k of mine) if (this.pending.get(k) === p) this.pending.delete(k);
      end();
    };
  }
}
