import type { WorkerPlacePool } from '../run/places.js';

// The run's worker places as the batch pool (./batch-pool.ts) sees them: a part-filled text request
// waits while a job of the run is on its way to the pool (waiting for a place, or holding one and
// being prepared: its job row, the claims of a shared state), so that a first sync of many small
// files fills its requests on a slow state (PostgreSQL) as on a fast one.

export type Coming = 'surely' | 'maybe' | 'no';

export class WatchedPlaces implements WorkerPlacePool {
  /** Takers still waiting for their place. */
  private takers = 0;
  /** Places taken whose job has not reached its driver yet (the give-back functions). */
  private readonly preparing = new Set<() => void>();

  constructor(private readonly inner: WorkerPlacePool) {}

  async take(): Promise<() => void> {
    this.takers++;
    let give: () => void;
    try {
      give = await this.inner.take();
    } finally {
      this.takers--;
    }
    const back = () => {
      this.preparing.delete(back);
      give();
    };
    this.preparing.add(back);
    return back;
  }

  /** The job holding `place` reached its driver: from now on the pool counts it as reading. */
  arrived(place: (() => void) | undefined): void {
    if (place) this.preparing.delete(place);
  }

  /**
   * Whether a job is on its way to the pool: `surely` (it holds its place and is being prepared:
   * it arrives, or gives its place back, without waiting for the pool), `maybe` (it waits for a
   * place, which a job of the pool may hold), or not at all.
   */
  get coming(): Coming {
    if (this.preparing.size > 0) return 'surely';
    return this.takers > 0 ? 'maybe' : 'no';
  }
}
