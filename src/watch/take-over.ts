import type { Logger } from '../log/logger.js';
import type { SharedWork } from '../state/types.js';

// With other workers on the state (PostgreSQL): every third of the lease, watch looks for the work
// of workers whose lease ran out (they died), also while it is idle, and takes it over; the work is
// resumed from its record (a document with an id is collected, never uploaded again).

export class OrphanSweep {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly shared: SharedWork,
    /** Takes the orphaned work over (as a rescan: hand-overs paused meanwhile). */
    private readonly takeOver: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setTimeout(
      () =>
        void this.sweep().finally(() => {
          if (!this.stopped) this.start();
        }),
      (this.shared.leaseSeconds * 1000) / 3,
    );
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      if ((await this.shared.orphaned()) === 0) return;
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'could not look for the work of dead workers');
      return;
    }
    await this.takeOver();
  }
}
