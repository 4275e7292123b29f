import type { AccountLimits, AccountPlace } from '../../state/types.js';
import type { DownloadSlotPool, WorkerPlacePool } from './places.js';

// The run's places and download slots when several workers share one account: each is a numbered
// place of the account's limits in the shared state (taken and given back there), so that the
// manifest's concurrency and max_undownloaded hold for all workers together, not per process.

export class AccountPlaces implements WorkerPlacePool {
  constructor(private readonly limits: AccountLimits) {}

  async take(): Promise<() => void> {
    const place = await this.limits.acquire('in_flight');
    let given = false;
    return () => {
      if (given) return;
      given = true;
      void this.limits.release(place).catch(() => undefined);
    };
  }
}

export class AccountSlots implements DownloadSlotPool {
  private readonly held: AccountPlace[] = [];
  /** Slots given back before the place they stand for arrived (hold() takes it in the background). */
  private owed = 0;

  constructor(private readonly limits: AccountLimits) {}

  async acquire(): Promise<void> {
    this.keep(await this.limits.acquire('undownloaded'));
  }

  hold(): void {
    void this.limits.acquire('undownloaded').then(
      (p) => this.keep(p),
      () => undefined,
    );
  }

  release(): void {
    const place = this.held.pop();
    if (place) void this.limits.release(place).catch(() => undefined);
    else this.owed++;
  }

  /** As the in-process slots: a waiter goes on waiting for a slot that a download frees. */
  wakeAll(): void {}

  private keep(place: AccountPlace): void {
    if (this.owed > 0) {
      this.owed--;
      void this.limits.release(place).catch(() => undefined);
    } else this.held.push(place);
  }
}
