// The real service answers 429 Too Many Requests to a key that sends faster than it allows. Its limit
// is not published; the official client's maintainers advise staying at about 50 requests a second.
// The local service can hold each key to a chosen rate the same way, so that a client's own limiter
// and its handling of 429 are tried against a service that pushes back (and so that a race between
// two clients is not won by the one that ignores the advice).

/**
 * Requests per second per key: a bucket of `rate` requests (at least one: a rate below 1 a second
 * lets one request through every 1/rate seconds), refilled at `rate` a second. A request that finds
 * its key's bucket empty is refused with the whole seconds until it would not be.
 */
export class KeyRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly size: number;

  constructor(private readonly rate: number) {
    if (!(rate > 0)) throw new RangeError(`A rate limit must be above 0 requests a second (got ${rate}).`);
    this.size = Math.max(1, rate);
  }

  /** Takes one request of `key`: 0 when it may go, else the Retry-After in seconds (at least 1). */
  take(key: string): number {
    const now = performance.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.size, at: now };
    bucket.tokens = Math.min(this.size, bucket.tokens + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
  }
}
