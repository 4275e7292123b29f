/**
 * Work done one piece at a time in the order it came (a folder of 5,000 files gone is 5,000
 * deletions: the engine is not asked 5,000 things at once), with what is still to do countable and
 * awaitable (idle, settle, stop).
 */
export class InOrder {
  private chain: Promise<void> = Promise.resolve();
  private readonly open = new Set<Promise<void>>();

  /** Pieces queued or running. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Queues `work` after everything queued before; `done` runs once it has settled. `work` handles
   * its own errors: a rejection would stop the pieces queued after it.
   */
  add(work: () => Promise<void>, done: () => void): void {
    const p = this.chain.then(work).finally(() => {
      this.open.delete(p);
      done();
    });
    this.open.add(p);
    this.chain = p;
  }

  /** Settles when everything queued so far has. */
  async settled(): Promise<void> {
    await Promise.all([...this.open]);
  }
}
