// Segments being bought right now, by memory key, for the whole run: a segment that several
// documents of the run hold is sent by the first job that needs it; the others wait for its answer
// and then read it from the segment memory (identical segments across documents are sent once).

export class InFlightSegments {
  private readonly pending = new Map<string, Promise<void>>();

  /** The answer this key is waiting for, when another job is sending it. */
  waitFor(key: string): Promise<void> | undefined {
    return this.pending.get(key);
  }

  /** These keys are being sent by the caller: answers the call that ends their wait (sent or not). */
  claim(keys: readonly string[]): () => void {
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
