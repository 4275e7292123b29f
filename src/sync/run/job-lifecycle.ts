import path from 'node:path';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { JobRecord } from '../../state/types.js';
import type { Drive, DriveFlags, JobSource } from './drive.js';
import type { JobEnds, JobOutcome } from './job-ends.js';
import { OutputDelivery, type DeliveryDeps, type Translation } from './output-delivery.js';
import type { WorkerPlacePool } from './places.js';
import { outputFile } from '../../manifest/in-place-output.js';

// One job's lifecycle, the same for both methods. The executor plans and claims the job and hands
// it here; its method (a strategy: ./document-method.ts uploads, polls and spools a document,
// ../segments/segment-method.ts looks segments up in the memory and buys the missing ones in batches
// of text requests) translates it, every call that bills through ./billed-call.ts and every
// unfinished end through ./job-ends.ts; the one delivery step (./output-delivery.ts: the output
// checks, a person's edit, the part file and its rename, the record of it done) puts it in place.
// Resumed, deferred (a lost answer) and re-planned jobs come back here and find their method by
// their recorded request.

export type { Drive, DriveFlags, JobSource };

/** A method of translating a job (manifest `method`), behind the one lifecycle. */
export interface JobMethod {
  /** Whether this method translates the job, by its recorded request. */
  takes(src: JobSource): boolean;
  /** How this method speaks of the ends of a drive and counts what they spent. */
  readonly ends: JobEnds<Drive>;
  /**
   * Translate the job: the translation, ready for the delivery step, or how the drive ended. Called
   * as the drive gets its worker place, before anything is awaited.
   */
  translate(dr: Drive, src: JobSource): Promise<Translation | JobOutcome>;
}

/** The run's worker places, told which jobs reached their drive (../segments/places-watch.ts). */
export interface ArrivingPlaces extends WorkerPlacePool {
  arrived(place: (() => void) | undefined): void;
}

export interface JobLifecycleDeps extends DeliveryDeps {
  places: ArrivingPlaces;
}

export class JobLifecycle {
  private readonly delivery: OutputDelivery;

  /** `methods`: asked in order; the last one takes every job the others do not. */
  constructor(
    private readonly deps: JobLifecycleDeps,
    private readonly methods: readonly [...JobMethod[], JobMethod],
  ) {
    this.delivery = new OutputDelivery(deps);
  }

  /** The run's worker places, given to the executor: the drives tell them which jobs arrived. */
  get places(): ArrivingPlaces {
    return this.deps.places;
  }

  /**
   * Drive a job to done (or a recorded end). `worker`: a place already taken for it; `holdsSlot`:
   * a download slot already taken (a resumed document).
   */
  async drive(job: JobRecord, src: JobSource, flags: DriveFlags, worker?: () => void): Promise<JobOutcome> {
    const method = this.methods.find((m) => m.takes(src)) ?? (this.methods.at(-1) as JobMethod);
    const dr: Drive = {
      job,
      flags,
      holdsSlot: flags.holdsSlot,
      worker: worker ?? (await this.deps.places.take()),
      reupload: flags.lostAnswer ? 'lost-answer' : flags.unconfirmed ? 'unconfirmed-upload' : undefined,
      outputAbs: path.resolve(this.deps.base, outputFile(job.output_path)),
      sourceAbs: src.absPath,
    };
    this.deps.places.arrived(dr.worker);
    try {
      for (;;) {
        const translated = await method.translate(dr, src);
        if (typeof translated === 'string') return translated;
        const step = await this.delivery.deliver(dr, translated, method.ends);
        if (step !== 'again') return step;
      }
    } catch (err) {
      if (!(err instanceof HeldByOtherWorkerError)) throw err;
      return method.ends.takenOver(dr, err);
    } finally {
      dr.worker?.();
    }
  }
}
