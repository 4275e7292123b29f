// The job ledger: one row per (source content, target, settings) job, its transitions, and what a
// delivered output recorded.
// Part of the state interface (./types.ts).
import type { HashedFile } from './file-types.js';

/** Job statuses. pending: recorded before upload (no id yet); uploaded: id+key recorded; done; failed. */
export type JobStatus = 'pending' | 'uploaded' | 'done' | 'failed';

/** What a run billed, from the ledger: documents billed, uploads possibly billed, text requests. */
export interface RunBill {
  characters: number;
  /** Documents the service reported translated (and billed) during the run. */
  documents: number;
  /** Uploads whose answer was lost or hidden: possibly billed, counted at the document's bill. */
  possibly: number;
  textRequests: number;
}

export interface JobRecord {
  id: number;
  mapping: string;
  rel_path: string;
  sha256: string;
  target_lang: string;
  /** Settings fingerprint including the applied style list content. */
  fingerprint: string;
  /** The same settings without the style list content: equal base + different fingerprint = stale. */
  base_fingerprint: string;
  /** Output path relative to the manifest folder ('/' separators). */
  output_path: string;
  status: JobStatus;
  document_id: string | null;
  document_key: string | null;
  attempts: number;
  billed_characters: number | null;
  source_characters: number | null;
  error: string | null;
  /** Machine-readable kind of the last error (job-error, maybe-accepted, quota, lost-download ...). */
  error_kind: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** Set when the upload started (pending) — so a crash in the upload window can be reported. */
  upload_started_at: string | null;
  /** Epoch ms at which the download started (a crash after the rename is recognised by the mtime). */
  download_started_ms: number | null;
  run_id: number | null;
  /** Job whose output was copied instead of uploading again. */
  reused_from: number | null;
  /** Times this job's document had to be uploaded again after a lost download. */
  lost_downloads: number;
  /** JSON of the UploadDocumentRequest (no secrets). */
  request: string | null;
  /** Times this job was uploaded again because a crash hid whether the previous upload arrived. */
  unconfirmed_uploads: number;
  /**
   * What this job wrote (done jobs): sha256, size and mtime of the file it delivered. An output that
   * differs was edited by a person (src/sync/run/edited-output.ts). Null: not recorded (done before
   * it was kept): such an output is replaced as before.
   */
  output_sha256: string | null;
  output_size: number | null;
  output_mtime_ms: number | null;
  /**
   * The download received in full and kept in a spool (JobLedger.spooled), not yet written to its
   * output: where (the file as the worker that downloaded it names it), its sha256 and size, and
   * that worker (PostgreSQL: its worker id, host:pid:random; SQLite: null, the spool is this
   * machine's). Null once the output is written (done) or the document is given up.
   */
  spool_path: string | null;
  spool_sha256: string | null;
  spool_size: number | null;
  spool_holder: string | null;
}

/** Another run's job of an output, written since this worker planned it (JobLedger.sincePlan). */
export type JobSincePlan = Pick<JobRecord, 'id' | 'status' | 'error_kind' | 'run_id' | 'updated_at'>;

/** A download received in full and kept in the spool, as recorded on its job (JobRecord.spool_path ...). */
export interface SpooledDownload {
  path: string;
  sha256: string;
  size: number;
  /** The worker whose spool holds it (null: a single machine's state). */
  holder: string | null;
}

/** An output's latest done job and its record of what it wrote (JobLedger.writtenRecords). */
export type WrittenRecordRow = Pick<
  JobRecord,
  'id' | 'output_path' | 'output_sha256' | 'output_size' | 'output_mtime_ms'
>;

/** What a job delivered, as recorded on its row (JobRecord.output_sha256 ...). */
export interface WrittenOutput {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** An output delivered outside a run (JobLedger.deliveredInBulk): its source as hashed, its job, what it wrote. */
export interface DeliveredOutput {
  source: HashedFile;
  job: NewJob;
  written: WrittenOutput;
}

/**
 * What `state adopt` records as written at an output it adopts: nothing locsync wrote (the output
 * may hold a person's work, docs/review.md), so it is never found as written: a new translation of
 * it goes beside it, and on the segment path its segments are taken as a person's wording.
 */
export const NOT_WRITTEN_BY_LOCSYNC: WrittenOutput = {
  sha256: 'not-written-by-locsync',
  size: -1,
  mtimeMs: -1,
};

/** The columns of a done job that the planner keeps in memory. */
export type DoneIndexRow = Pick<
  JobRecord,
  'id' | 'sha256' | 'fingerprint' | 'base_fingerprint' | 'output_path' | 'mapping' | 'rel_path'
>;

export type NewJob = Pick<
  JobRecord,
  | 'mapping'
  | 'rel_path'
  | 'sha256'
  | 'target_lang'
  | 'fingerprint'
  | 'base_fingerprint'
  | 'output_path'
  | 'run_id'
> & {
  source_characters?: number | null;
  request?: string | null;
  /**
   * The output's latest done job as this worker knew it when it decided to translate (an output
   * gone from disk, or a re-translation asked for, has one for this very content). With several
   * workers, only a done job other than this one means another worker translated it meanwhile.
   */
  seen_done?: number;
};

/** What a failure does to a job's row (see JobLedger.failed). */
export interface JobFailure {
  /** Machine-readable kind (job-error, maybe-accepted, quota, auth, rejected, transient, output, stopped). */
  kind: string;
  error: string;
  /**
   * The document on the service is still collectable (a status check or download that failed): the
   * row keeps its id, key and status, and the next run resumes it. Otherwise the row becomes failed
   * and its key is dropped (a finished document's key is of no more use).
   */
  keepDocument: boolean;
  /**
   * Whether this failure uses up an attempt of max_attempts (not: quota, auth, stopped, transient).
   * One that does not gives back the attempt its upload counted as it left (uploadStarted).
   */
  countsAttempt: boolean;
  /**
   * Its upload never left (uploads stopped before): no attempt of it was counted, so none is given
   * back; those of earlier uploads (a lost answer's, an earlier run's) stay counted.
   */
  unsent?: boolean;
  /**
   * Its upload was a lost download's re-upload, which counted no attempt as it left (uploadStarted
   * with 'lost-download'): none is given back; the first upload's, which the service took, stays.
   */
  reupload?: 'lost-download';
  /**
   * A kept document failed again in a later run (its output still cannot be written): that run's
   * try is an attempt of its own (the upload counted only the first), so the job is given up at
   * max_attempts instead of being fetched forever.
   */
  retriedKept?: boolean;
  /**
   * This worker uploads the job again in this run (a lost upload answer): with several workers on
   * the state it keeps holding the job's unit meanwhile, so that no other worker uploads it too.
   */
  keepClaim?: boolean;
}

/**
 * The job rows, and their only writer. Every transition is named after what happened and answers
 * the fresh record. Record before acting: `created` before the upload is attempted, `uploadStarted`
 * right before it, `uploaded` the moment it answers, `downloading` before the download, `done` once
 * the output is in place.
 */
export interface JobLedger {
  get(id: number): Promise<JobRecord | undefined>;
  /** Jobs not done: pending, uploaded (id+key kept: resume), failed (retried up to max_attempts). */
  open(): Promise<JobRecord[]>;
  /** The latest done job of one output path: what the output holds. */
  latestDoneOf(outputPath: string): Promise<DoneIndexRow | undefined>;
  /** The latest done job of each of these output paths (those with one), in one call. */
  latestDoneOfEach(outputPaths: readonly string[]): Promise<DoneIndexRow[]>;
  /** Every done job, few columns, oldest first, streamed (the bulk read of a busy scan). */
  doneIndex(): AsyncIterable<DoneIndexRow>;
  /** Done jobs of one content and settings fingerprint, oldest first (reuse donors). */
  doneWithContent(sha256: string, fingerprint: string): Promise<Array<{ id: number; output_path: string }>>;
  /** Done jobs of one source file (on_source_delete: delete). */
  doneOfSource(mapping: string, relPath: string): Promise<JobRecord[]>;
  /** Whether any job is done: a state that has translated nothing yet (a lost state?) answers false. */
  anyDone(): Promise<boolean>;
  /** The latest done job of every output with its record of what it wrote, by output path. */
  writtenRecords(): Promise<WrittenRecordRow[]>;
  /**
   * Characters billed since `since` (ISO): every job with a billed count recorded then, finished or
   * still downloading (the service bills a document once it is translated, before it is fetched).
   */
  billedSince(since: string): Promise<number>;
  /** What run `runId` billed, from the ledger of charges and text requests (../state/billed.ts). */
  billedOfRun(runId: number): Promise<RunBill>;
  /** Changes whenever any job is recorded, updated or removed (a saved plan checks it). */
  changeToken(): Promise<string>;
  /** Of these document ids, those of done jobs (a spool file left after its output was recorded). */
  doneDocuments(documentIds: readonly string[]): Promise<Set<string>>;
  /**
   * The ledger's clock now (ISO), as it stamps job writes (updated_at): a plan read from then on
   * knows what was written before it (sincePlan allows for stamps that precede their commit).
   */
  horizon(): Promise<string>;
  /**
   * Another run's job of `job`'s output and unit written since `since` (a horizon): the output was
   * failed, delivered or taken by another worker since this one planned it (./since-plan.ts).
   */
  sincePlan(job: JobRecord, runId: number, since: string): Promise<JobSincePlan | undefined>;

  /** A new job (status pending), recorded before anything is sent. */
  created(job: NewJob): Promise<JobRecord>;
  /** A recorded open job taken up by this run (its request as planned now). */
  takenUp(job: JobRecord, runId: number, request: string): Promise<JobRecord>;
  /** An earlier run stopped between sending this job's upload and recording its answer. */
  unconfirmedUpload(job: JobRecord): Promise<JobRecord>;
  /**
   * `state adopt`: an existing output recorded as done for the current settings (a new job, done at
   * once, nothing billed, nothing uploaded).
   */
  adopted(job: NewJob): Promise<JobRecord>;
  /**
   * Outputs delivered outside a run (a benchmark's seeded state of a million files): each source
   * file recorded as hashed and its output's job done at once with what it wrote, nothing uploaded
   * or billed; in transactions of many outputs each (../delivered-bulk.ts). Answers how many.
   */
  deliveredInBulk(outputs: readonly DeliveredOutput[]): Promise<number>;
  /** An output copied from an identical translation: a new job, done at once, nothing billed. */
  reused(job: NewJob, fromJobId: number, written?: WrittenOutput): Promise<JobRecord>;
  /**
   * The upload is about to be sent: the attempt is counted (not for a re-upload after a lost
   * download, which is not the document's fault), id, key and earlier errors are cleared.
   */
  uploadStarted(job: JobRecord, runId: number, reupload?: 'lost-download'): Promise<JobRecord>;
  /** The upload answered: id and key recorded at once. */
  uploaded(job: JobRecord, documentId: string, documentKey: string): Promise<JobRecord>;
  /** The translation is done and billed: the download starts now (epoch ms). */
  downloading(job: JobRecord, billedCharacters: number, startedMs: number): Promise<JobRecord>;
  /**
   * The download was received in full and is in the spool (fsynced): from now on it is delivered
   * from there, whoever resumes the job, and never asked of the service again.
   */
  spooled(job: JobRecord, spool: SpooledDownload): Promise<JobRecord>;
  /** The output is in place (`written`: what was delivered, to recognise an edit later). */
  done(job: JobRecord, billedCharacters: number, written?: WrittenOutput): Promise<JobRecord>;
  /** The document is gone from the service before it was downloaded: it must be uploaded again. */
  lostDownload(job: JobRecord): Promise<JobRecord>;
  failed(job: JobRecord, failure: JobFailure): Promise<JobRecord>;
  /**
   * The source changed before this job's upload: closed unsent. A row that never led to an upload is
   * removed (undefined); one with earlier attempts keeps its history, marked superseded.
   */
  superseded(job: JobRecord, error: string): Promise<JobRecord | undefined>;
}
