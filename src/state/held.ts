import type { DoneIndexRow, JobRecord } from './job-types.js';

// A unit of work (one source content, target and settings) is worked on by one worker at a time
// when several share a state; the others leave it to that worker.

/** Another live worker holds this unit of work: leave it to that worker. */
export class HeldByOtherWorkerError extends Error {
  constructor(
    readonly unit: string,
    readonly holder: string,
  ) {
    super(`this document and target are being translated by worker ${holder}`);
    this.name = 'HeldByOtherWorkerError';
  }
}

/**
 * Another worker finished this unit since this one planned it: its output holds that translation
 * (`done`), so there is nothing to upload.
 */
export class DoneElsewhereError extends Error {
  constructor(readonly done: DoneIndexRow) {
    super(`${done.output_path} was translated by another worker meanwhile`);
    this.name = 'DoneElsewhereError';
  }
}

/**
 * The unit already has a recorded open job — the work of a worker whose lease ran out, now this
 * worker's: that job is carried on (a document with an id is collected, never uploaded again).
 */
export class RecordedJobError extends Error {
  constructor(readonly job: JobRecord) {
    super(`${job.output_path} has a recorded job (${job.id}): it is resumed, not started again`);
    this.name = 'RecordedJobError';
  }
}
