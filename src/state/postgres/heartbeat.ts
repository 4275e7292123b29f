import type pg from 'pg';
import type { Logger } from '../../log/logger.js';
import { isUnreachable } from './connect.js';
import { beat } from './workers.js';

// A worker's heartbeat: a beat every third of the lease renews everything it holds. While the
// database cannot be reached the worker is `paused`: it must start no upload (nothing could record
// its document id) and finish nothing it cannot record; downloads in progress go on into the
// spool. Once a beat has failed for a whole lease, other workers may already have taken its units
// over: `leaseLost` tells the executor to drop them and claim again before doing anything more.

export interface HeartbeatEvents {
  /** The database stopped answering (first failed beat). */
  onPause?: () => void;
  /** The database answers again; `leaseLost` says whether our leases may have been taken meanwhile. */
  onResume?: (info: { leaseLost: boolean; downMs: number }) => void;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private lastOk = Date.now();
  private failingSince: number | undefined;
  private beating: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string,
    private readonly leaseSeconds: number,
    private readonly events: HeartbeatEvents = {},
    private readonly logger?: Logger,
  ) {}

  /** Whether the database answered the last beat. */
  get paused(): boolean {
    return this.failingSince !== undefined;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.beatOnce(), (this.leaseSeconds * 1000) / 3);
    this.timer.unref();
  }

  /** One beat now (also what the timer runs); never throws. */
  beatOnce(): Promise<void> {
    this.beating ??= this.doBeat().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async doBeat(): Promise<void> {
    try {
      const live = await beat(this.pool, this.workerId, this.leaseSeconds);
      if (!live) this.logger?.warn({ worker: this.workerId }, 'this worker was marked stopped in the state');
      const now = Date.now();
      if (this.failingSince !== undefined) {
        const downMs = now - this.failingSince;
        const leaseLost = now - this.lastOk > this.leaseSeconds * 1000;
        this.failingSince = undefined;
        this.logger?.info({ down_ms: downMs, lease_lost: leaseLost }, 'PostgreSQL answers again: resuming');
        this.events.onResume?.({ leaseLost, downMs });
      }
      this.lastOk = now;
    } catch (err) {
      if (this.failingSince === undefined) {
        this.failingSince = Date.now();
        this.logger?.warn(
          { err: (err as Error).message, unreachable: isUnreachable(err) },
          'PostgreSQL does not answer: pausing new uploads until it does',
        );
        this.events.onPause?.();
      }
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
