// The client's own request limits (requests per second, calls at once), and the account's when
// several processes share one account.

import PQueue from 'p-queue';

/**
 * The account's request limits when several processes share one account (workers on a PostgreSQL
 * state): a token is taken before every attempt, and a 429 or 529 seen by one process slows all.
 */
export interface AccountGate {
  takeToken(signal?: AbortSignal): Promise<void>;
  pause(ms: number): Promise<void>;
}

/** Runs attempts of calls within one client's rate and concurrency. */
export class RateLimiter {
  private readonly queue: PQueue;

  constructor(rate: { requestsPerSecond: number; concurrency: number }) {
    // intervalCap must be a whole number: n requests per n/rps seconds is the same rate.
    const intervalCap = Math.max(1, Math.floor(rate.requestsPerSecond));
    this.queue = new PQueue({
      concurrency: Math.floor(rate.concurrency),
      intervalCap,
      interval: Math.round((1000 * intervalCap) / rate.requestsPerSecond),
      strict: true,
    });
  }

  /** Attempts running now (started by the limiter, not yet ended). */
  get running(): number {
    return this.queue.pending;
  }

  /**
   * One attempt through the limiter. `signal` takes it out of the queue while it waits; once
   * started it is awaited to the end (the queue alone would leave a started request running and
   * reject its caller: an upload the service then accepts and bills would go unrecorded).
   */
  run<T>(attemptOnce: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) return this.queue.add(attemptOnce) as Promise<T>;
    const waiting = new AbortController();
    let started = false;
    const onAbort = () => {
      if (!started) waiting.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const run = () => {
      started = true;
      return attemptOnce();
    };
    return (this.queue.add(run, { signal: waiting.signal }) as Promise<T>).finally(() =>
      signal.removeEventListener('abort', onAbort),
    );
  }
}
