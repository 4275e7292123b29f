import { DoneElsewhereError, HeldByOtherWorkerError, RecordedJobError } from '../../state/held.js';
import type { JobRecord, NewJob } from '../../state/types.js';
import type { OutputRef, ResavedAction, ResumeAction, ReuseAction, TranslateAction } from '../plan/types.js';
import type { DecideAgainBecause } from './decide-again.js';
import type { ExecutorDeps } from './executor-deps.js';
import { reportEndedElsewhere } from './ended-elsewhere.js';
import { jobRowOf } from './job-row.js';
import { sourceHolds } from './source-check.js';

// Claiming a unit of work for this run: its job row written (or a recorded one taken up) right
// before the work starts, not when it was planned. With state shared by several workers the unit is
// claimed (a lease) here too, and a unit another worker holds or has finished is left to it.

/** What a translation found when it came to claim its unit. */
export type TranslateClaim =
  /** The job row this run uploads under; `recorded` is the row it took up, if there was one. */
  | { job: JobRecord; recorded: JobRecord | undefined }
  /** The source or the recorded job moved on since the plan: decided again. */
  | { again: DecideAgainBecause }
  /** Another worker holds the unit. */
  | { holder: string; jobId: number }
  /** Nothing to do: left to or ended by another worker (reported), or a job this run already drives. */
  | { settled: true };

export class Claims {
  /** Jobs this run drives or has resumed: never driven a second time. */
  readonly taken = new Set<number>();

  constructor(private readonly deps: ExecutorDeps) {}

  /** Claims the unit of a translation whose source is at `abs` (a worker place is held). */
  async translate(a: TranslateAction, abs: string): Promise<TranslateClaim> {
    const { state, ledger, runId } = this.deps;
    let recorded = a.jobId !== undefined ? await state.jobs.get(a.jobId) : undefined;
    const replaced = !(await sourceHolds(state.files, a.ref.mapping, a.ref.file, a.source.sha256, abs));
    // Replaced since it was planned (or its recorded job moved on): no row for what is not there.
    if (replaced || (a.jobId !== undefined && (!recorded || recorded.status === 'done')))
      return { again: replaced ? 'source-replaced' : 'job-moved-on' };
    if (recorded && state.shared) {
      // Several workers: its unit is claimed now that it starts, not when it was planned.
      const took = await state.shared.take(recorded);
      if (!('job' in took))
        return 'holder' in took ? { holder: took.holder, jobId: recorded.id } : { again: 'job-moved-on' };
      recorded = took.job;
    }
    if (recorded && failedSincePlan(recorded, a, runId)) {
      // Not bought again here, as ./billed-call.ts does for the output's other jobs; the planner
      // learns the failure, so that a later look at the output meets it as it is now.
      await state.shared?.letGo(recorded);
      ledger.movedOn(recorded);
      reportEndedElsewhere(this.deps.report, a.ref, recorded, this.deps.logger.child(a.ref));
      return { settled: true };
    }
    const request = JSON.stringify(a.settings.request);
    try {
      const job = recorded
        ? await ledger.takenUp(recorded, runId, request)
        : await ledger.created(this.newJob(a));
      return { job, recorded };
    } catch (err) {
      if (!(err instanceof RecordedJobError)) {
        if (this.leftToOtherWorker(err, a.ref)) return { settled: true };
        throw err;
      }
      // The unit's job was recorded by a worker whose lease ran out: carried on from its record.
      if (this.taken.has(err.job.id)) return { settled: true };
      return { job: await ledger.takenUp(err.job, runId, request), recorded: err.job };
    }
  }

  /**
   * Claims a recorded upload to collect (a worker place and a download slot are held): its job as
   * this run's, or undefined when there is nothing left to collect.
   */
  async resume(a: ResumeAction): Promise<JobRecord | undefined> {
    const { state, ledger, report, logger, runId } = this.deps;
    let job = await state.jobs.get(a.jobId);
    if (job && state.shared) {
      // Several workers: its unit is claimed now that it starts (a takeover when a dead one held it).
      const took = await state.shared.take(job);
      if ('holder' in took)
        report.heldElsewhere({ jobId: a.jobId, ...a.ref }, took.holder, logger.child(a.ref));
      job = 'job' in took ? took.job : undefined;
    }
    if (!job || job.status !== 'uploaded' || !job.document_id || !job.document_key) return undefined;
    // Taken up by this run: what the service bills it from now on is this run's (src/state/billed.ts).
    if (job.run_id !== runId && job.request !== null) job = await ledger.takenUp(job, runId, job.request);
    return job;
  }

  /**
   * Several workers share the state: a unit another worker holds is left to it, one it finished since
   * this worker planned is known done. Answers whether `err` was one of those.
   */
  leftToOtherWorker(err: unknown, ref: OutputRef): boolean {
    const log = () => this.deps.logger.child(ref);
    if (err instanceof DoneElsewhereError) {
      this.deps.ledger.doneElsewhere(err.done);
      this.deps.report.heldElsewhere({ jobId: err.done.id, ...ref }, 'done', log());
      return true;
    }
    if (err instanceof HeldByOtherWorkerError) {
      this.deps.report.heldElsewhere({ jobId: 0, ...ref }, err.holder, log());
      return true;
    }
    return false;
  }

  /** The job row of a planned translation or copy. */
  newJob(a: TranslateAction | ReuseAction | ResavedAction): NewJob {
    return {
      ...jobRowOf(a, this.deps.runId),
      // What the plan knew of the output: a done job other than this one was done elsewhere.
      ...(a.kind === 'translate' && a.doneId !== undefined ? { seen_done: a.doneId } : {}),
    };
  }
}

/**
 * Whether another run failed `job` since the plan of `a` read it. Every write of a job stamps its
 * updated_at, so another stamp than the plan's is a later write; this run's own are not news to it.
 */
function failedSincePlan(job: JobRecord, a: TranslateAction, runId: number): boolean {
  if (job.status !== 'failed' || a.jobUpdatedAt === undefined || job.run_id === runId) return false;
  return job.updated_at !== a.jobUpdatedAt;
}
