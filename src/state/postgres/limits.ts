import pg from 'pg';
import { PlaceShare } from './place-share.js';

// The account's limits held for all workers together (the manifest's concurrency,
// max_undownloaded and requests_per_second are the account's, not one process's):
// They live in the schema locsync_account, shared by every pipeline's schema on the database, one
// set per service account (`account`: a fingerprint of the key, never the key).
//  - places: numbered rows of limit_slots per kind; taking one is an UPDATE of a free row picked
//    with FOR UPDATE SKIP LOCKED, so workers never wait on each other's transactions. A place held
//    by a dead worker frees itself when its lease runs out (the heartbeat renews live ones).
//  - requests: one token bucket row, refilled by the database clock; a 429/529 seen by any worker
//    sets paused_until, and every worker's next request waits for it.
// A place given back while this process has waiters goes straight to the next of them (no round
// trip, no wake-up delay) unless other workers wait too and this one holds more than its share
// (place-share.ts); otherwise it goes back to the table, announced on a PostgreSQL channel, which
// wakes every other process's look for a free place at once (each process also looks in the table
// every pollMs while it has waiters, in case a notification is missed or a holder died). A process
// with waiters says so on the same channel, so that the others know to share.

export type PlaceKind = 'in_flight' | 'undownloaded';

/** The channel on which a place given back is announced (its payload: the kind). */
const CHANNEL = 'locsync_places';

export interface GlobalLimitsOptions {
  workerId: string;
  /** The service account whose limits these are (a fingerprint of its key, never the key). */
  account: string;
  /** Places of each kind (the account's limits). */
  places: Record<PlaceKind, number>;
  requestsPerSecond: number;
  leaseSeconds: number;
  /** How often a waiter looks for a free place in the table (ms); default 100. */
  pollMs?: number;
}

export interface Place {
  kind: PlaceKind;
  slot: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

interface Waiter {
  give(p: Place): void;
  fail(err: Error): void;
}

export class GlobalLimits {
  private readonly pool: pg.Pool;
  private readonly opts: Required<GlobalLimitsOptions>;
  /** This process's waiters for a place of each kind, first come first served. */
  private readonly waiters: Record<PlaceKind, Waiter[]> = { in_flight: [], undownloaded: [] };
  /** The one loop per kind that looks in the table for its waiters (see pump). */
  private readonly pumping: Record<PlaceKind, boolean> = { in_flight: false, undownloaded: false };
  /** Wakes a sleeping pump at once: a place of that kind was given back somewhere. */
  private readonly wake: Record<PlaceKind, (() => void) | undefined> = {
    in_flight: undefined,
    undownloaded: undefined,
  };
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  private closed = false;
  /** Request tokens taken from the bucket and not spent yet (see takeToken). */
  private tokens = 0;
  private tokensUntil = 0;
  private fetching: Promise<number> | undefined;
  /** This process's share of each kind's places while other workers wait for one. */
  private readonly share: Record<PlaceKind, PlaceShare>;

  constructor(pool: pg.Pool, opts: GlobalLimitsOptions) {
    this.pool = pool;
    this.opts = { pollMs: 100, ...opts };
    this.share = {
      in_flight: new PlaceShare(opts.places.in_flight),
      undownloaded: new PlaceShare(opts.places.undownloaded),
    };
  }

  /** Create the rows for the configured limits (idempotent; several workers may run it at once). */
  async prepare(): Promise<void> {
    for (const [kind, n] of Object.entries(this.opts.places))
      await this.pool.query(
        `INSERT INTO locsync_account.limit_slots (account, kind, slot) SELECT $3, $1, s FROM generate_series(0, $2 - 1) s ON CONFLICT DO NOTHING`,
        [kind, n, this.opts.account],
      );
    await this.pool.query(
      `INSERT INTO locsync_account.rate_buckets (account, tokens, refilled_at, paused_until) VALUES ($2, $1, clock_timestamp(), 'epoch')
       ON CONFLICT DO NOTHING`,
      [this.burst(), this.opts.account],
    );
  }

  /**
   * Take a place of `kind`, waiting until one is free anywhere (or `signal` aborts). Waiters queue
   * in this process: a place given back here goes to the first of them, and one loop (pump) looks
   * in the table for them all. A run plans far more documents than there are places; each waiter
   * polling on its own would cost a query per waiter every pollMs, which on a few cores is what
   * slows the workers down.
   */
  async acquire(kind: PlaceKind, signal?: AbortSignal): Promise<Place> {
    signal?.throwIfAborted();
    // Those already waiting here come first; beyond its share, a process waits its turn.
    if (this.waiters[kind].length === 0 && this.share[kind].mayTake()) {
      const got = await this.tryAcquire(kind);
      if (got) return got;
    }
    return new Promise<Place>((resolve, reject) => {
      const waiter: Waiter = {
        give: (p) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(p);
        },
        fail: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const list = this.waiters[kind];
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        reject(signal?.reason as Error);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters[kind].push(waiter);
      this.listen();
      this.pump(kind);
    });
  }

  /**
   * While this process has waiters of `kind`: take a free place from the table for the first of
   * them, else sleep until a place is announced (NOTIFY) or pollMs passes (a notification missed,
   * a holder dead whose lease ran out).
   */
  private pump(kind: PlaceKind): void {
    if (this.pumping[kind]) return;
    this.pumping[kind] = true;
    void (async () => {
      try {
        while (this.waiters[kind].length > 0) {
          let got: Place | undefined;
          try {
            if (this.share[kind].announceDue()) await this.announceWant(kind);
            if (this.share[kind].mayTake()) got = await this.tryAcquire(kind);
          } catch (err) {
            // The pool has waited out what it could: every waiter hears it, as from its own query.
            for (const w of this.waiters[kind].splice(0)) w.fail(err as Error);
            return;
          }
          if (got) {
            const next = this.waiters[kind].shift();
            if (next) next.give(got);
            else await this.release(got).catch(() => undefined); // its waiter gave up meanwhile
            continue;
          }
          await new Promise<void>((resolve) => {
            const t = setTimeout(done, this.opts.pollMs * (0.5 + Math.random()));
            function done() {
              clearTimeout(t);
              resolve();
            }
            this.wake[kind] = done;
          });
          this.wake[kind] = undefined;
        }
      } finally {
        this.pumping[kind] = false;
      }
    })();
  }

  /** One attempt at a free place (no wait). */
  async tryAcquire(kind: PlaceKind): Promise<Place | undefined> {
    const r = await this.pool.query<{ slot: number }>(
      `UPDATE locsync_account.limit_slots l SET worker_id = $1, held_until = clock_timestamp() + make_interval(secs => $4)
       FROM (SELECT account, kind, slot FROM locsync_account.limit_slots
             WHERE account = $5 AND kind = $2 AND slot < $3 AND (worker_id IS NULL OR held_until < clock_timestamp())
             ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) free
       WHERE l.account = free.account AND l.kind = free.kind AND l.slot = free.slot
       RETURNING l.slot`,
      [this.opts.workerId, kind, this.opts.places[kind], this.opts.leaseSeconds, this.opts.account],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    this.share[kind].held++;
    return { kind, slot: row.slot };
  }

  /** Tell the other workers that this one waits for a place of `kind`. */
  private async announceWant(kind: PlaceKind): Promise<void> {
    const want = { kind, account: this.opts.account, worker: this.opts.workerId };
    await this.pool.query(`SELECT pg_notify('${CHANNEL}', $1)`, [`want:${JSON.stringify(want)}`]);
  }

  /**
   * Give a place back: to this process's next waiter while it holds no more than its share, else to
   * the table (where a waiting worker takes it).
   */
  async release(place: Place): Promise<void> {
    const share = this.share[place.kind];
    if (share.mayKeep()) {
      const next = this.waiters[place.kind].shift();
      if (next) return next.give(place);
    }
    share.held = Math.max(0, share.held - 1);
    await this.pool.query(
      `WITH freed AS (
         UPDATE locsync_account.limit_slots SET worker_id = NULL, held_until = NULL
         WHERE account = $4 AND kind = $1 AND slot = $2 AND worker_id = $3
         RETURNING kind)
       SELECT pg_notify('${CHANNEL}', kind) FROM freed`,
      [place.kind, place.slot, this.opts.workerId, this.opts.account],
    );
  }

  /** Listen for places given back by other processes (once; again after the connection was lost). */
  private listen(): void {
    if (this.listening || this.closed) return;
    this.listening = (async () => {
      // A connection of its own, outside the pool: it is held for as long as the worker runs.
      const client = new pg.Client((this.pool as unknown as { options: pg.ClientConfig }).options);
      client.on('notification', (m) => this.heard(m.payload ?? ''));
      client.on('error', () => {
        // The server went away: polling goes on; the next wait listens again.
        if (this.listener === client) this.listener = undefined;
        this.listening = undefined;
        void client.end().catch(() => undefined);
      });
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.listener = client;
      if (this.closed) this.close();
    })().catch(() => {
      this.listening = undefined;
    });
  }

  /** A message on the places channel: a place given back (its kind), or a worker wanting one. */
  private heard(payload: string): void {
    // want:{"kind", "account", "worker"}: only this account's workers share its places.
    if (!payload.startsWith('want:')) return this.wake[payload as PlaceKind]?.();
    let want: { kind: PlaceKind; account: string; worker: string };
    try {
      want = JSON.parse(payload.slice(5)) as typeof want;
    } catch {
      return; // not ours to read
    }
    if (want.account === this.opts.account && want.worker !== this.opts.workerId)
      this.share[want.kind]?.heard(want.worker);
  }

  /** Stop listening. */
  close(): void {
    this.closed = true;
    const client = this.listener;
    this.listener = undefined;
    void client?.end().catch(() => undefined);
  }

  /** Places of `kind` held now by live holders, across all workers. */
  async inUse(kind: PlaceKind): Promise<number> {
    const r = await this.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM locsync_account.limit_slots
       WHERE account = $2 AND kind = $1 AND worker_id IS NOT NULL AND held_until > clock_timestamp()`,
      [kind, this.opts.account],
    );
    return r.rows[0]?.n ?? 0;
  }

  private burst(): number {
    return Math.max(1, this.opts.requestsPerSecond);
  }

  /**
   * Wait for the account's next request token (requests_per_second over all workers, pauses
   * honoured). Tokens come from the shared bucket a few at a time (a twentieth of a second's worth,
   * at most 16) and are spent here within a second: one round trip, one lock of the bucket's row,
   * for several requests. Callers at the same moment share one round trip.
   */
  async takeToken(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      if (this.tokens > 0 && Date.now() < this.tokensUntil) {
        this.tokens--;
        return;
      }
      this.fetching ??= this.fetchTokens().finally(() => (this.fetching = undefined));
      const waitMs = await this.fetching;
      if (waitMs > 0) await sleep(Math.min(waitMs, 60_000), signal);
    }
  }

  /** Take up to a batch of tokens from the bucket; answers how long to wait when none was free. */
  private async fetchTokens(): Promise<number> {
    const rate = this.opts.requestsPerSecond;
    const batch = Math.max(1, Math.min(16, Math.floor(rate / 20)));
    const level = `LEAST($2::float8, tokens + extract(epoch FROM clock_timestamp() - refilled_at) * $3::float8)`;
    const r = await this.pool.query<{ took: number; wait_ms: number }>(
      `WITH b AS (SELECT ${level} AS level, paused_until FROM locsync_account.rate_buckets WHERE account = $1 FOR UPDATE),
       upd AS (
         UPDATE locsync_account.rate_buckets SET tokens = b.level - LEAST($4::float8, floor(b.level)), refilled_at = clock_timestamp()
         FROM b WHERE account = $1 AND b.level >= 1 AND b.paused_until <= clock_timestamp()
         RETURNING LEAST($4::float8, floor(b.level))::int AS took)
       SELECT COALESCE((SELECT took FROM upd), 0) AS took,
         GREATEST(extract(epoch FROM b.paused_until - clock_timestamp()) * 1000,
                  (1 - b.level) / $3::float8 * 1000, 1)::float8 AS wait_ms
       FROM b`,
      [this.opts.account, this.burst(), rate, batch],
    );
    const row = r.rows[0];
    if (!row) {
      await this.prepare();
      return 0;
    }
    if (row.took > 0) {
      this.tokens += row.took;
      // Spent within a second: a pause asked by another worker holds here that soon.
      this.tokensUntil = Date.now() + 1000;
      return 0;
    }
    return row.wait_ms;
  }

  /** The service said slow down (429/529): every worker waits `ms` before its next request. */
  async pause(ms: number): Promise<void> {
    this.tokens = 0;
    await this.pool.query(
      `UPDATE locsync_account.rate_buckets SET tokens = 0, refilled_at = clock_timestamp(),
         paused_until = GREATEST(paused_until, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
       WHERE account = $1`,
      [this.opts.account, ms],
    );
  }
}
