import { chargeOf, type Charge } from '../billed.js';
import { transitions, type JobFields } from '../transitions.js';
import { DELIVERED_BATCH } from '../delivered-bulk.js';
import { WriteGroup } from './write-group.js';
import type {
  DeliveredOutput,
  DoneIndexRow,
  JobFailure,
  JobLedger,
  JobRecord,
  JobSincePlan,
  NewJob,
  RunBill,
  SpooledDownload,
  WrittenOutput,
  WrittenRecordRow,
} from '../job-types.js';

// The job ledger on SQLite: the only writer of job rows. Each transition is one update of the row,
// then the fresh row is read back; the transitions asked for in one turn of the event loop are
// committed together (./write-group.ts), and each call answers once its write is committed.

/** The writes of state.db's jobs table: the SQLite store hands them to its ledger only. */
export interface JobRowWrites {
  createJob(job: NewJob): JobRecord;
  updateJob(id: number, fields: Partial<Omit<JobRecord, 'id' | 'created_at'>>): void;
  deleteJob(id: number): void;
  /** Outputs delivered outside a run: file records and done jobs, in one transaction. */
  deliveredInBulk(outputs: readonly DeliveredOutput[]): void;
  /** Record what the service billed or may have billed (../billed.ts). */
  charge(c: Charge): void;
}

/** The reads of state.db's jobs table this ledger makes (the SQLite store has them). */
export interface JobRows {
  getJob(id: number): JobRecord | undefined;
  openJobs(): JobRecord[];
  latestDoneOf(outputPath: string): DoneIndexRow | undefined;
  latestDoneOfEach(outputPaths: readonly string[]): DoneIndexRow[];
  iterateDoneIndex(): IterableIterator<DoneIndexRow>;
  doneWithContent(sha256: string, fingerprint: string): Array<{ id: number; output_path: string }>;
  doneJobsOfSource(mapping: string, relPath: string): JobRecord[];
  anyDoneJob(): boolean;
  writtenRecords(): WrittenRecordRow[];
  billedSince(since: string): number;
  billedOfRun(runId: number): RunBill;
  jobsToken(): string;
  /** Another run's job of `job`'s output and unit written since `since` (../since-plan.ts). */
  sincePlan(job: JobRecord, runId: number, since: string): JobSincePlan | undefined;
  doneDocuments(documentIds: readonly string[]): string[];
  transaction<T>(fn: () => T): T;
}

export class SqliteJobLedger implements JobLedger {
  private readonly group: WriteGroup;

  constructor(
    private readonly rows: JobRows,
    private readonly writes: JobRowWrites,
    /** Whether the connection is still open (writes left queued at close() are refused). */
    isOpen: () => boolean = () => true,
  ) {
    this.group = new WriteGroup((fn) => this.rows.transaction(fn), isOpen);
  }

  private fresh(id: number): JobRecord {
    const job = this.rows.getJob(id);
    if (!job) throw new Error(`job ${id} is not in the state any more`);
    return job;
  }

  private write(
    job: JobRecord,
    fields: Partial<Omit<JobRecord, 'id' | 'created_at'>>,
    charge?: Charge,
  ): Promise<JobRecord> {
    return this.group.write(() => {
      this.writes.updateJob(job.id, fields);
      if (charge) this.writes.charge(charge);
      return this.fresh(job.id);
    });
  }

  async get(id: number): Promise<JobRecord | undefined> {
    return this.rows.getJob(id);
  }
  async writtenRecords(): Promise<WrittenRecordRow[]> {
    return this.rows.writtenRecords();
  }
  async anyDone(): Promise<boolean> {
    return this.rows.anyDoneJob();
  }
  async billedSince(since: string): Promise<number> {
    return this.rows.billedSince(since);
  }
  async billedOfRun(runId: number): Promise<RunBill> {
    return this.rows.billedOfRun(runId);
  }
  async changeToken(): Promise<string> {
    return this.rows.jobsToken();
  }
  /** Rows are stamped by this process's clock as they are written (synchronously): now. */
  async horizon(): Promise<string> {
    return new Date().toISOString();
  }
  async sincePlan(job: JobRecord, runId: number, since: string): Promise<JobSincePlan | undefined> {
    return this.rows.sincePlan(job, runId, since);
  }
  async doneDocuments(documentIds: readonly string[]): Promise<Set<string>> {
    return new Set(documentIds.length ? this.rows.doneDocuments(documentIds) : []);
  }
  async open(): Promise<JobRecord[]> {
    return this.rows.openJobs();
  }
  async latestDoneOf(outputPath: string): Promise<DoneIndexRow | undefined> {
    return this.rows.latestDoneOf(outputPath);
  }
  async latestDoneOfEach(outputPaths: readonly string[]): Promise<DoneIndexRow[]> {
    return this.rows.latestDoneOfEach(outputPaths);
  }
  async *doneIndex(): AsyncIterable<DoneIndexRow> {
    // Read in one go: a statement left open across the caller's awaits would make every other
    // statement on this connection fail (better-sqlite3 allows one running query at a time).
    const rows = [...this.rows.iterateDoneIndex()];
    yield* rows;
  }
  async doneWithContent(
    sha256: string,
    fingerprint: string,
  ): Promise<Array<{ id: number; output_path: string }>> {
    return this.rows.doneWithContent(sha256, fingerprint);
  }
  async doneOfSource(mapping: string, relPath: string): Promise<JobRecord[]> {
    return this.rows.doneJobsOfSource(mapping, relPath);
  }

  async created(job: NewJob): Promise<JobRecord> {
    return this.group.write(() => this.writes.createJob(job));
  }
  async takenUp(job: JobRecord, runId: number, request: string): Promise<JobRecord> {
    return this.write(job, transitions.takenUp(job, runId, request));
  }
  async unconfirmedUpload(job: JobRecord): Promise<JobRecord> {
    return this.write(job, transitions.unconfirmedUpload(job), chargeOf.unconfirmed(job));
  }
  async reused(job: NewJob, fromJobId: number, written?: WrittenOutput): Promise<JobRecord> {
    return this.createdDone(job, transitions.reused(fromJobId, written));
  }
  async adopted(job: NewJob): Promise<JobRecord> {
    return this.createdDone(job, transitions.adopted());
  }
  /** A new row done at once, in one transaction (nothing sees it pending). */
  private createdDone(job: NewJob, fields: JobFields): Promise<JobRecord> {
    return this.group.write(() => {
      const created = this.writes.createJob(job);
      this.writes.updateJob(created.id, fields);
      return this.fresh(created.id);
    });
  }
  async uploadStarted(job: JobRecord, runId: number, reupload?: 'lost-download'): Promise<JobRecord> {
    return this.write(job, transitions.uploadStarted(job, runId, reupload));
  }
  async uploaded(job: JobRecord, documentId: string, documentKey: string): Promise<JobRecord> {
    return this.write(job, transitions.uploaded(documentId, documentKey));
  }
  async downloading(job: JobRecord, billedCharacters: number, startedMs: number): Promise<JobRecord> {
    return this.write(
      job,
      transitions.downloading(billedCharacters, startedMs),
      chargeOf.billed(job, billedCharacters),
    );
  }
  async spooled(job: JobRecord, spool: SpooledDownload): Promise<JobRecord> {
    return this.write(job, transitions.spooled(spool));
  }
  async done(job: JobRecord, billedCharacters: number, written?: WrittenOutput): Promise<JobRecord> {
    return this.write(
      job,
      transitions.done(billedCharacters, written),
      chargeOf.billed(job, billedCharacters),
    );
  }
  async deliveredInBulk(outputs: readonly DeliveredOutput[]): Promise<number> {
    for (let at = 0; at < outputs.length; at += DELIVERED_BATCH) {
      const batch = outputs.slice(at, at + DELIVERED_BATCH);
      await this.group.write(() => this.writes.deliveredInBulk(batch));
    }
    return outputs.length;
  }
  async lostDownload(job: JobRecord): Promise<JobRecord> {
    return this.write(job, transitions.lostDownload(job));
  }
  async failed(job: JobRecord, f: JobFailure): Promise<JobRecord> {
    return this.write(job, transitions.failed(job, f), chargeOf.failed(job, f));
  }
  async superseded(job: JobRecord, error: string): Promise<JobRecord | undefined> {
    const fields = transitions.superseded(job, error);
    if (fields) return this.write(job, fields);
    await this.group.write(() => this.writes.deleteJob(job.id));
    return undefined;
  }
}
