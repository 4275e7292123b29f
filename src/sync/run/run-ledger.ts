import type { JobLedger, JobRecord, NewJob } from '../../state/types.js';
import type {
  DoneIndexRow,
  JobFailure,
  JobSincePlan,
  SpooledDownload,
  WrittenOutput,
} from '../../state/types.js';
import type { OutputIndex } from '../plan/output-index.js';
import type { Counted, LiveSummary } from './live-summary.js';

// The run's ledger: the one writer of job rows. Every transition of a job (src/state/transitions.ts,
// written by the backend's JobLedger) goes through here, and with it what follows from it in
// memory: the output index the planner reads (what each output holds, which jobs are open) and the
// run's counts. The executor, the job driver and `state adopt` write rows through it and nothing
// else; reads go to the state directly.

export class RunLedger {
  constructor(
    private readonly deps: {
      jobs: JobLedger;
      /** The planner's view of the outputs (none: a command that plans nothing after its writes). */
      index?: OutputIndex;
      /** The run's report, whose counts the transitions keep (none: not a sync run). */
      report?: LiveSummary;
    },
  ) {}

  /** A new job (status pending), recorded before anything is sent. */
  created(job: NewJob): Promise<JobRecord> {
    return this.deps.jobs.created(job);
  }

  /** A recorded open job taken up by this run (its request as planned now). */
  takenUp(job: JobRecord, runId: number, request: string): Promise<JobRecord> {
    return this.deps.jobs.takenUp(job, runId, request);
  }

  /** An earlier run stopped between sending this job's upload and recording its answer. */
  unconfirmedUpload(job: JobRecord): Promise<JobRecord> {
    return this.deps.jobs.unconfirmedUpload(job);
  }

  /** The upload is about to be sent. */
  uploadStarted(job: JobRecord, runId: number, reupload?: 'lost-download'): Promise<JobRecord> {
    return this.deps.jobs.uploadStarted(job, runId, reupload);
  }

  /** The upload answered: id and key recorded at once; an upload of this run counted. */
  async uploaded(job: JobRecord, documentId: string, documentKey: string): Promise<JobRecord> {
    const fresh = await this.deps.jobs.uploaded(job, documentId, documentKey);
    this.deps.report?.count('uploads');
    this.deps.index?.jobOpen(fresh);
    return fresh;
  }

  /** The translation is done and billed: the download starts now (epoch ms). */
  downloading(job: JobRecord, billedCharacters: number, startedMs: number): Promise<JobRecord> {
    return this.deps.jobs.downloading(job, billedCharacters, startedMs);
  }

  /** The download is in the spool, whole and fsynced: delivered from there from now on. */
  spooled(job: JobRecord, spool: SpooledDownload): Promise<JobRecord> {
    return this.deps.jobs.spooled(job, spool);
  }

  /** The output is in place: it holds this job's translation from now on. */
  async done(job: JobRecord, billedCharacters: number, written?: WrittenOutput): Promise<JobRecord> {
    const fresh = await this.deps.jobs.done(job, billedCharacters, written);
    this.deps.index?.jobDone(fresh);
    return fresh;
  }

  /** The document is gone from the service before it was downloaded. */
  lostDownload(job: JobRecord): Promise<JobRecord> {
    return this.deps.jobs.lostDownload(job);
  }

  /** A failure recorded; a job that keeps no document is open again (for a later try). */
  async failed(job: JobRecord, failure: JobFailure): Promise<JobRecord> {
    const fresh = await this.deps.jobs.failed(job, failure);
    if (!failure.keepDocument) this.deps.index?.jobOpen(fresh);
    return fresh;
  }

  /** The source changed before this job's upload: closed unsent (undefined: its row is gone). */
  async superseded(job: JobRecord, error: string): Promise<JobRecord | undefined> {
    const fresh = await this.deps.jobs.superseded(job, error);
    if (fresh) this.deps.index?.jobOpen(fresh);
    else this.deps.index?.jobGone(job);
    return fresh;
  }

  /** An output copied from an identical translation (or a source saved again unchanged). */
  async reused(job: NewJob, fromJobId: number, written?: WrittenOutput): Promise<JobRecord> {
    const fresh = await this.deps.jobs.reused(job, fromJobId, written);
    this.deps.index?.jobDone(fresh);
    return fresh;
  }

  /** `state adopt`: an existing output recorded as done for the current settings, nothing billed. */
  async adopted(job: NewJob): Promise<JobRecord> {
    const fresh = await this.deps.jobs.adopted(job);
    this.deps.index?.jobDone(fresh);
    return fresh;
  }

  /** A recorded job another run failed since the plan read it, as it stands now: the planner's view follows. */
  movedOn(job: JobRecord): void {
    this.deps.index?.jobOpen(job);
  }

  /** Another worker finished the output's unit meanwhile (its row is that worker's): known done. */
  doneElsewhere(done: DoneIndexRow): void {
    this.deps.index?.jobDone(done);
  }

  /**
   * Another run's job of this job's output and unit, written since the planner read the ledger
   * (the output failed, delivered or taken by another worker meanwhile); none without a planner.
   */
  async sincePlan(job: JobRecord, runId: number): Promise<JobSincePlan | undefined> {
    const since = this.deps.index?.since;
    return since === undefined ? undefined : this.deps.jobs.sincePlan(job, runId, since);
  }

  /** A piece of work of this run counted (a translation collected, a resumed one, a stale one retaken). */
  count(what: Counted): void {
    this.deps.report?.count(what);
  }
}
