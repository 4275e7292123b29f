import type { JobRecord, SegmentMemory } from '../../state/types.js';
import { JobDriver, type JobDriverDeps, type JobOutcome, type JobSource } from '../run/job-driver.js';
import { BatchPool } from './batch-pool.js';
import { InFlightSegments } from './in-flight.js';
import { WatchedPlaces } from './places-watch.js';

// The job driver of a run with both methods: a job whose request says `segments` (method: segments)
// goes the segment path (./segment-job.ts), every other one the document path (../run/job-driver.ts).
// The executor drives jobs through it unchanged: resumed, deferred (a lost answer) and re-planned
// jobs come back here and find their path by their recorded request.

export interface SegmentDriverDeps extends JobDriverDeps {
  /** The state's segment memory (absent: segment jobs fail with a clear message). */
  memory: SegmentMemory | undefined;
  /** service.concurrency: text requests in flight at once. */
  concurrency: number;
}

export class MethodDriver extends JobDriver {
  /** Segments being bought in this run, shared by its jobs (each is sent once). */
  private readonly inFlight: InFlightSegments;
  /** The run's text requests, packed across documents of the same languages and settings. */
  private readonly pool: BatchPool;

  /** The run's worker places, to be given to the executor: the pool sees the jobs on their way. */
  readonly places: WatchedPlaces;
  private readonly sd: SegmentDriverDeps;

  constructor(sd: SegmentDriverDeps) {
    const places = new WatchedPlaces(sd.places);
    super({ ...sd, places });
    this.sd = { ...sd, places };
    this.places = places;
    this.inFlight = new InFlightSegments(sd.timing.segmentStallMs);
    this.pool = new BatchPool(sd.concurrency, undefined, () => places.coming);
  }

  override async drive(
    job: JobRecord,
    src: JobSource,
    flags: { resumed: boolean; holdsSlot: boolean; unconfirmed?: boolean; lostAnswer?: boolean },
    worker?: () => void,
  ): Promise<JobOutcome> {
    this.places.arrived(worker);
    if (!src.request?.segments) return super.drive(job, src, flags, worker);
    // The segment path (the document layer's readers and writers) is loaded with its first job.
    const { SegmentJob } = await import('./segment-job.js');
    // A text request holds a worker place while it is sent (the account's concurrency), never a
    // download slot (nothing waits at the service to be downloaded).
    const place = worker ?? (await this.sd.places.take());
    const doneReading = this.pool.reading();
    this.places.arrived(place);
    if (flags.holdsSlot) this.sd.slots.release();
    try {
      return await new SegmentJob(
        { ...this.sd, inFlight: this.inFlight, pool: this.pool, givePlaceBack: place, doneReading },
        job,
        src,
        {
          ...(flags.unconfirmed ? { unconfirmed: true } : {}),
          ...(flags.lostAnswer ? { lostAnswer: true } : {}),
        },
      ).run();
    } finally {
      doneReading();
      place();
    }
  }
}
