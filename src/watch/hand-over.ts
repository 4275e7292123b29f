import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Files handed over to the run, a few at a time: those waiting (`waiting`) and those the run is
 * taking (`inFlight`). `start` hands one over (undefined: nothing to hand, e.g. its mapping was
 * removed); `canStart` says whether handing over may go on now (not paused, not stopping);
 * `after` runs when one is done, and pumps the next.
 */
export class HandOver<T> {
  private readonly queue: T[] = [];
  private running = 0;

  constructor(
    private readonly limit: number,
    private readonly hooks: {
      canStart: () => boolean;
      start: (item: T) => Promise<void> | undefined;
      after: () => void;
    },
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  get inFlight(): number {
    return this.running;
  }

  push(items: readonly T[]): void {
    this.queue.push(...items);
  }

  /** Drops what waits (answers how many): picked up again by the next start. */
  clear(): number {
    return this.queue.splice(0).length;
  }

  /** Hands over what may start now. */
  pump(): void {
    while (this.hooks.canStart() && this.running < this.limit && this.queue.length) {
      const work = this.hooks.start(this.queue.shift()!);
      if (!work) continue;
      this.running++;
      void work.finally(() => {
        this.running--;
        this.hooks.after();
      });
    }
  }

  /** Settles once nothing is being handed over. */
  async inFlightDone(): Promise<void> {
    while (this.running > 0) await sleep(20);
  }
}
