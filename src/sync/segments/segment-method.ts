import type { SegmentMemory } from '../../state/types.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import type { PollTiming } from '../timing.js';
import { JobEnds, type DriveState, type JobOutcome } from '../run/job-ends.js';
import type { Drive, JobMethod, JobSource } from '../run/job-lifecycle.js';
import type { Translation } from '../run/output-delivery.js';
import type { SegmentJobDeps } from './segment-job.js';
import { BatchPool } from './batch-pool.js';
import { InFlightSegments } from './in-flight.js';
import type { WatchedPlaces } from './places-watch.js';

// The segment method (method: segments, docs/segments.md), a strategy of the one job lifecycle
// (../run/job-lifecycle.ts): a job whose request says `segments` is translated segment by segment
// (./segment-job.ts), its text requests packed across the run's documents (./batch-pool.ts); what
// it writes is delivered by the shared step (../run/output-delivery.ts).

export interface SegmentMethodDeps extends Omit<SegmentJobDeps, 'inFlight' | 'pool'> {
  /** The run's worker places as the pool sees them (the jobs on their way to it). */
  places: WatchedPlaces;
  /** service.concurrency: text requests in flight at once. */
  concurrency: number;
  /** The state's segment memory (absent: segment jobs fail with a clear message). */
  memory: SegmentMemory | undefined;
  timing: Pick<PollTiming, 'segmentStallMs'>;
}

export class SegmentMethod implements JobMethod {
  readonly ends: JobEnds<Drive>;
  /** Segments being bought in this run, shared by its jobs (each is sent once). */
  private readonly inFlight: InFlightSegments;
  /** The run's text requests, packed across documents of the same languages and settings. */
  private readonly pool: BatchPool;

  constructor(private readonly deps: SegmentMethodDeps) {
    this.ends = new JobEnds<Drive>(deps, END_WORDS, spendOnFailure);
    this.inFlight = new InFlightSegments(deps.timing.segmentStallMs);
    this.pool = new BatchPool(deps.concurrency, undefined, () => deps.places.coming);
  }

  takes(src: JobSource): boolean {
    return !!src.request?.segments;
  }

  /**
   * A text request holds a worker place while it is sent (the account's concurrency), never a
   * download slot (nothing waits at the service to be downloaded). The pool counts the job as
   * reading its document (from the moment it has its place) until its texts are in.
   */
  async translate(dr: Drive, src: JobSource): Promise<Translation | JobOutcome> {
    const doneReading = this.pool.reading();
    if (dr.holdsSlot) this.deps.slots.release();
    dr.holdsSlot = false;
    try {
      // The segment path (the document layer's readers and writers) is loaded with its first job.
      const { SegmentJob } = await import('./segment-job.js');
      const deps = { ...this.deps, inFlight: this.inFlight, pool: this.pool, doneReading };
      return await new SegmentJob(deps, dr, src, this.ends).translate();
    } finally {
      doneReading();
    }
  }
}

/** How the segment method speaks of the ends of a drive (../run/job-ends.ts). */
const END_WORDS = {
  superseded:
    'the source changed after this job was planned: nothing sent; its new content is planned instead',
  stoppedAfterSending:
    'the run was stopped while segments were being sent; the rest are sent by the next run',
  deferred:
    'the answer to a text request was lost (the service may have translated and billed it): its segments are sent again later in this run',
};

/**
 * The state records every text request with its characters: a job stopped or failed partway has
 * spent what its requests may have billed (answered or not), and later calls of the run count it.
 */
async function spendOnFailure(guard: SpendGuard, dr: DriveState): Promise<void> {
  const spent = dr.attempt?.spent ?? 0;
  if (spent > 0) await guard.settle(dr.job.id, spent);
  else guard.release(dr.job.id);
}
