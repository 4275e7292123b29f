// How many of the account's places one worker may hold while other workers wait for one. A worker
// alone (nobody else heard waiting) holds as many as it can use; while others wait, each holds at
// most its share, ceil(places / workers waiting), so a worker that started later gets places as
// soon as the first gives some back, instead of the first handing every place it frees to its own
// queue until its whole plan is done. Workers hear each other through "want" announcements on the
// places channel (limits.ts); an announcement counts for WANT_TTL_MS, and a waiting worker repeats
// it every WANT_EVERY_MS.

/** How long a worker counts as waiting after its last announcement (ms). */
export const WANT_TTL_MS = 2000;
/** How often a worker with waiters announces that it wants places (ms). */
export const WANT_EVERY_MS = 500;

export class PlaceShare {
  /** Other workers heard wanting a place → when that stops counting (ms since the epoch). */
  private readonly others = new Map<string, number>();
  /** Places this process holds. */
  held = 0;
  private lastAnnounced = 0;

  constructor(private readonly places: number) {}

  /** Another worker announced that it waits for a place. */
  heard(workerId: string, now = Date.now()): void {
    this.others.set(workerId, now + WANT_TTL_MS);
  }

  /** Workers other than this one waiting for a place now. */
  othersWaiting(now = Date.now()): number {
    for (const [id, until] of this.others) if (until <= now) this.others.delete(id);
    return this.others.size;
  }

  /** The most places this process may hold now (all of them while nobody else waits). */
  share(now = Date.now()): number {
    const others = this.othersWaiting(now);
    return others === 0 ? this.places : Math.ceil(this.places / (others + 1));
  }

  /** Whether this process may take one more place from the table. */
  mayTake(now = Date.now()): boolean {
    return this.held < this.share(now);
  }

  /** Whether a place this process gives back may go to its own next waiter (it keeps what it holds). */
  mayKeep(now = Date.now()): boolean {
    return this.held <= this.share(now);
  }

  /** Whether it is time to announce again that this process waits (and note that it does). */
  announceDue(now = Date.now()): boolean {
    if (now - this.lastAnnounced < WANT_EVERY_MS) return false;
    this.lastAnnounced = now;
    return true;
  }
}
