// The state interface: what the sync engine (src/sync) and the style reconciler (src/styles) need to
// remember between runs. The SQLite backend (src/state/sqlite) implements it; a second backend
// (PostgreSQL, several machines) implements the same interface. Every call returns a Promise so that
// an asynchronous client can stand behind it; reads the no-op scan makes per file come in bulk (one
// call per mapping), so a remote backend is not asked 100,000 times.

import type { Recalled, SegmentOrigin, TranslationMemory } from './memory-types.js';

export type { Recalled, SegmentOrigin } from './memory-types.js';

/** Job statuses. pending: recorded before upload (no id yet); uploaded: id+key recorded; done; failed. */
export type JobStatus = 'pending' | 'uploaded' | 'done' | 'failed';

export interface FileRecord {
  mapping: string;
  rel_path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
  seen_at: string;
  /**
   * Set when a scan found every output of this content up to date (latest done job of each output made
   * from this very file, with this sha256 and settings): the settings signature it was checked with.
   * Cleared when the file's content changes or a done job is recorded for one of its outputs (see
   * JobLedger.done). A later scan with the same size, mtime and signature needs no job lookup at all.
   */
  verified: number | null;
  /**
   * The file's inode and ctime when it was hashed: what a rename over a file of the same size and
   * mtime changes. Null in records written before they were kept (such a file is hashed once more).
   */
  ino: number | null;
  ctime_ms: number | null;
}

/** What a scan records of a file it hashed (inode and ctime may be left out: recorded as unknown). */
export type HashedFile = Omit<FileRecord, 'seen_at' | 'verified' | 'ino' | 'ctime_ms'> &
  Partial<Pick<FileRecord, 'ino' | 'ctime_ms'>>;

/**
 * What a scan needs of every recorded file of a mapping, as read in bulk: size, mtime, verified
 * mark, inode and ctime, no sha256 (a file whose mark matches needs no content at all; see
 * FileInventory.filesOf).
 */
export type ListedFile = readonly [
  relPath: string,
  size: number,
  mtimeMs: number,
  verified: number | null,
  ino: number | null,
  ctimeMs: number | null,
];

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

/** See FileInventory.mappingSnapshot. */
export interface MappingSnapshot {
  /** Digest of the source listing: every file's path, size, mtime, inode, ctime and settings signature. */
  digest: string;
  /** The output folders of the mapping's outputs (relative to the manifest folder). */
  outputDirs: string[];
  /** Digest of the names in those folders when every output was there. */
  outputsDigest: string;
  /**
   * Digest of each source folder's own files (folder: the path before the last '/', '' at the top),
   * as `digest` is of them all: a scan whose listing changed in some folders takes the others as the
   * no-op does. Absent in snapshots recorded before it existed.
   */
  folders?: ReadonlyMap<string, string>;
}

/** The columns of a done job that the planner keeps in memory. */
export type DoneIndexRow = Pick<
  JobRecord,
  'id' | 'sha256' | 'fingerprint' | 'base_fingerprint' | 'output_path' | 'mapping' | 'rel_path'
>;

export interface RunRecord {
  id: number;
  started_at: string;
  finished_at: string | null;
  command: string;
  status: RunStatus;
  pid: number;
  counts: Record<string, number> | null;
  billed_characters: number;
  /** Why the run stopped early or failed (see RunStopReason); null when it completed. */
  reason: RunStopReason | null;
}

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

/** What the reconciler last applied to the service for one style list of the manifest. */
export interface AppliedStyle {
  /** Key of the list in the manifest's `style_lists`. */
  key: string;
  style_id: string;
  name: string;
  language: string;
  /** The service's `version` right after our last change (drift: the remote version differs). */
  version: number;
  /** sha256 of the canonical JSON of what was applied. */
  hash: string;
  /** ISO 8601 time of the apply. */
  applied_at: string;
}

export interface StyleStateStore {
  getStyle(key: string): AppliedStyle | undefined;
  setStyle(rec: AppliedStyle): void;
  deleteStyle(key: string): void;
  allStyles(): AppliedStyle[];
}

/** How a run ended, and why when it did not complete (status, report). */
/** skipped: refused before it began because another locsync held the state (not an outcome). */
/** stopped: a watch ended by SIGINT/SIGTERM, its normal end (a sync so ended is interrupted). */
export type RunStatus = 'running' | 'ok' | 'failed' | 'interrupted' | 'stopped' | 'crashed' | 'skipped';

/** Why a run stopped before its work was done (none: it completed). Interrupted is not failed. */
export type RunStopReason =
  | 'documents-failed' // the run went through; some documents failed
  | 'source-missing' // a mapping's source folder is not there (or empty where files were)
  | 'drift' // a style list was changed on the service by someone else
  | 'auth' // the service refused the API key
  | 'quota' // the account's character quota is used up
  | 'budget' // the plan would exceed the budget
  | 'lock' // another process holds the state
  | 'signal' // stopped by SIGINT/SIGTERM (interrupted)
  | 'config' // the manifest or the options are wrong
  | 'internal'; // an unexpected error

export interface RunOutcome {
  status: Exclude<RunStatus, 'running' | 'crashed'>;
  reason?: RunStopReason;
}

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

/** The source files seen, their content, and the no-op fast paths' marks. */
export interface FileInventory {
  get(mapping: string, relPath: string): Promise<FileRecord | undefined>;
  /** Every recorded file of a mapping, by relative path, without content hashes (the bulk read). */
  listed(mapping: string): Promise<Map<string, ListedFile>>;
  /**
   * The recorded files of a mapping that lie directly in one of `folders` (a file's folder: its path
   * before the last '/', '' at the top), as `listed` (a scan that needs only the folders that changed).
   */
  listedIn(mapping: string, folders: readonly string[]): Promise<Map<string, ListedFile>>;
  /**
   * Every recorded file of a mapping as `listed` has them, a page at a time (by path, in the
   * backend's order): a scan of 100,000s of files holds a page of records at once, not a map of all.
   */
  listedPages(mapping: string): AsyncIterable<ListedFile[]>;
  /** The recorded sha256 of every file of a mapping, by relative path (when many are needed). */
  contents(mapping: string): Promise<Map<string, string>>;
  /** The recorded sha256 of these files of a mapping (those recorded), in one call. */
  contentsOf(mapping: string, relPaths: readonly string[]): Promise<Map<string, string>>;
  /** A file was hashed: recorded (its verified mark and its mapping's snapshot are void). */
  put(rec: HashedFile): Promise<void>;
  /** A source is gone. */
  remove(mapping: string, relPath: string): Promise<void>;
  /** These files' outputs were all found up to date under the settings signature `sig`. */
  verify(mapping: string, sig: number, relPaths: readonly string[]): Promise<void>;
  snapshot(mapping: string): Promise<MappingSnapshot | undefined>;
  setSnapshot(mapping: string, snap: MappingSnapshot, files: number): Promise<void>;
}

/**
 * A content digest as recorded (src/documents/digest): by the sha256 of the bytes it was made from,
 * so it is never out of date and serves every file, job and copy with those bytes.
 */
export interface StoredDigest {
  sha256: string;
  /** The content digest; '' when the file had none (its format has no digest, or it could not be read). */
  digest: string;
  /** JSON of the per-part summary (PartDigest[]) that `plan --why` compares. */
  parts: string;
}

/** Content digests by the sha256 of the bytes (see StoredDigest). */
export interface ContentDigests {
  get(sha256: string): Promise<StoredDigest | undefined>;
  /** Which of these contents have a digest recorded (one call per scan, not one per file). */
  known(sha256s: readonly string[]): Promise<Set<string>>;
  put(rows: readonly StoredDigest[]): Promise<void>;
}

export interface RunLog {
  /** Record a run; runs left running by a process that died are marked crashed. */
  start(command: string): Promise<number>;
  finish(id: number, outcome: RunOutcome, counts: Record<string, number>, billed: number): Promise<void>;
}

/**
 * What a state shared by several workers (PostgreSQL) adds: the rules that make them one pipeline.
 * A single machine's state (SQLite) has none of it.
 */
export interface SharedWork {
  /** The database does not answer now: start no upload (nothing could record its document id). */
  readonly paused: boolean;
  /**
   * Claim the unit of an open job (one the ledger listed) as this worker starts it: the job as it
   * stands now; or the live worker that holds it; or gone (finished or dropped meanwhile).
   */
  take(job: JobRecord): Promise<{ job: JobRecord } | { holder: string } | { gone: true }>;
  /** The live worker other than this one that holds a unit of work now, if any (nothing is claimed). */
  holderOf(unit: { sha256: string; target_lang: string; fingerprint: string }): Promise<string | undefined>;
  /**
   * Units of work other live workers hold now, and those dead workers left unfinished (taken over
   * once their lease ran out): what a sync waits for before it ends.
   */
  othersAtWork(): Promise<number>;
  /**
   * This worker has no work in progress: it gives back every unit it holds (units it took over but
   * had nothing to do for), so that workers waiting for each other never wait forever.
   */
  idle(): Promise<void>;
  /** Units dead workers left with a job, whose lease ran out: to be taken over now. */
  orphaned(): Promise<number>;
  /** Run a style list and glossary reconcile as the only worker doing so (the others wait, then read its result). */
  terminologyExclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Lease of this worker's units, seconds. */
  readonly leaseSeconds: number;
  /** This worker's id (host:pid:random): whose spool holds a download (JobRecord.spool_holder). */
  readonly workerId: string;
  /** Whether that worker is alive (it beat within its lease and did not stop). */
  workerAlive(workerId: string): Promise<boolean>;
  /** Give back the unit of one job this worker took but leaves to another worker (its job stays open). */
  letGo(unit: { sha256: string; target_lang: string; fingerprint: string }): Promise<void>;
  /** The monthly budget, held for every worker of the pipeline together. */
  readonly budget: SharedBudget;
  /** Segments this pipeline's workers are sending now (method: segments): each is sent by one of them. */
  readonly sendingSegments: SegmentClaims;
  /** The manifest's service limits, held for all workers together. */
  accountLimits(o: {
    concurrency: number;
    maxUndownloaded: number;
    requestsPerSecond: number;
    /** The service account (a fingerprint of its key): pipelines of one account share its limits. */
    account?: string;
  }): AccountLimits;
}

/** Budget reservations every worker of a pipeline sees (src/state/postgres/budget.ts). */
export interface SharedBudget {
  /**
   * Reserve `characters` for job `jobId` against the month cap `perMonth`, counting what the
   * pipeline billed since `monthStart` and what every live worker has reserved; atomic. Answers
   * what was billed or reserved before when the reservation would exceed the cap (nothing reserved).
   */
  reserveMonth(
    jobId: number,
    characters: number,
    perMonth: number,
    monthStart: string,
  ): Promise<{ used: number } | undefined>;
  /** The job's reservation is over: its bill is recorded, or nothing was billed. */
  release(jobId: number): Promise<void>;
}

/** A numbered place of one of the account's limits (documents in flight, documents not downloaded). */
export interface AccountPlace {
  kind: 'in_flight' | 'undownloaded';
  slot: number;
}

/** The account's limits, shared by every worker (src/state/postgres/limits.ts). */
export interface AccountLimits {
  /** Make the places and the request bucket exist (idempotent). */
  prepare(): Promise<void>;
  /** Take a place, waiting until one is free anywhere (or `signal` aborts). */
  acquire(kind: AccountPlace['kind'], signal?: AbortSignal): Promise<AccountPlace>;
  release(place: AccountPlace): Promise<void>;
  /** Wait for the account's next request token. */
  takeToken(signal?: AbortSignal): Promise<void>;
  /** The service said slow down: every worker waits `ms`. */
  pause(ms: number): Promise<void>;
}

/** The state a sync works with. */
export interface SyncState {
  /** Where the state lives, for messages (a file path, a database name). */
  readonly location: string;
  readonly jobs: JobLedger;
  readonly files: FileInventory;
  readonly digests: ContentDigests;
  readonly runs: RunLog;
  /** What the reconciler last applied for a style list (its content hash makes outputs stale). */
  appliedStyle(key: string): Promise<AppliedStyle | undefined>;
  /** What the reconciler last applied for a glossary (its hash per language pair makes outputs stale). */
  appliedGlossary(key: string): Promise<AppliedGlossary | undefined>;
  /** Present when several workers share the state. */
  readonly shared?: SharedWork;
  /** Present when the manifest says `reuse: across_pipelines` and the state is PostgreSQL. */
  readonly acrossPipelines?: ReuseAcrossPipelines;
  /** Translated segments and the text requests that bought them (method: segments; both backends). */
  readonly segments?: SegmentMemory;
  /** The memory as a whole: import, export, stats (docs/memory.md; both backends). */
  readonly memory?: TranslationMemory;
  /** The output checks' last verdict per output (both backends; absent in hand-made test states). */
  readonly qaResults?: QaResultStore;
}

/** One translated segment, as the segment memory keeps it (src/segments/memory-key.ts makes `key`). */
export interface SegmentMemoryRow {
  /** Digest of the normalised tagged source, both languages and the translation settings. */
  key: string;
  /** The source segment as sent: text with inline tags (src/documents/tagged.ts). */
  source: string;
  source_lang: string | null;
  target_lang: string;
  /** Digest of the settings that change a translation (style list content, glossary, formality ...). */
  settings: string;
  /** The translated segment with its inline tags. */
  translation: string;
  origin: SegmentOrigin;
  run_id: number | null;
  /** The source document it was translated in (relative to the manifest), for an export. */
  document?: string | null;
}

/** A text request (POST /v2/translate) as recorded before it is sent: billed once the service takes it. */
export interface TextRequestRecord {
  id: number;
  job_id: number;
  run_id: number | null;
  texts: number;
  characters: number;
  /** sent: recorded, no answer yet (a crash leaves it so: maybe billed); answered; lost: maybe billed. */
  state: 'sent' | 'answered' | 'lost';
  sent_at: string;
  answered_at: string | null;
}

/** A text request about to be sent: its job, its run, how many texts and characters it bills. */
export interface NewTextRequest {
  jobId: number;
  runId: number;
  texts: number;
  characters: number;
}

/**
 * The segment memory (method: segments, docs/segments.md): translated segments by key, and the text
 * requests that bought them, recorded before each is sent. Its only writer besides the review of
 * segments (origin reviewed) is the segment path (src/segments).
 */
export interface SegmentMemory {
  /** Translations of these keys that are remembered (a reviewed one before the service's). */
  lookup(keys: readonly string[]): Promise<Map<string, string>>;
  /** The same, with where each came from (reviewed before imported before the service's). */
  recall(keys: readonly string[]): Promise<Map<string, Recalled>>;
  /** Remember translations (a person's reviewed ones, or the service's outside a request). */
  put(rows: readonly SegmentMemoryRow[]): Promise<void>;
  /** A text request of job `jobId` is about to be sent: recorded first (answers its id). */
  textRequestSent(r: NewTextRequest): Promise<number>;
  /** Its answer came: the translations remembered and the request marked answered, together. */
  textRequestAnswered(id: number, rows: readonly SegmentMemoryRow[]): Promise<void>;
  /** Its answer was lost (the service may have translated and billed it). */
  textRequestLost(id: number): Promise<void>;
  /**
   * It is not sent after all: every attempt so far was surely not taken and uploads stopped before
   * the next (it waited for its retry). Its record is removed: nothing of it was billed.
   */
  textRequestNotSent(id: number): Promise<void>;
  /** Requests of a job sent by an earlier run and never answered (it crashed): marked lost, answered. */
  unansweredOf(jobId: number): Promise<TextRequestRecord[]>;
  /** Characters of a job's text requests that may have been billed (every one recorded as sent). */
  billedOf(jobId: number): Promise<number>;
}

/**
 * Segments being sent by the workers of one pipeline (PostgreSQL), by memory key: a worker claims
 * the keys it is about to send and gives them back once their answers are in the segment memory (or
 * the request failed). A claim holds while its worker is alive (its heartbeat, as for units of work):
 * a dead worker's claims are taken over.
 */
export interface SegmentClaims {
  /** Claim these keys for this worker: answers those another live worker holds (key → worker id). */
  claim(keys: readonly string[]): Promise<Map<string, string>>;
  /** Of these keys, those another live worker holds now (key → worker id). */
  heldElsewhere(keys: readonly string[]): Promise<Map<string, string>>;
  /** Give these keys back (this worker's claims only). */
  release(keys: readonly string[]): Promise<void>;
}

/** The output checks' last verdict on one output (src/qa, docs/qa.md). */
export interface QaResultRow {
  /** Output path relative to the manifest folder ('/' separators): one row per output. */
  output_path: string;
  /** The job whose download was checked (0: checked by `locsync check`, no job). */
  job_id: number;
  mapping: string;
  rel_path: string;
  target_lang: string;
  outcome: 'pass' | 'flagged' | 'failed';
  /** JSON array of the findings: { check, message, where[] }. */
  findings: string;
  checked_at: string;
}

export interface QaResultStore {
  /** Records the verdict on an output (replacing the one before). */
  record(row: QaResultRow): Promise<void>;
  /** The outputs whose last verdict is one of `outcomes`, by output path. */
  list(outcomes: ReadonlyArray<QaResultRow['outcome']>): Promise<QaResultRow[]>;
}

/** A translation another pipeline on the same database shares (reuse: across_pipelines). */
export interface SharedTranslation {
  /** The other pipeline's name. */
  pipeline: string;
  /** Its done job (in its own state). */
  jobId: number;
  /** Absolute path of its output: its output path under the folder of the manifest it recorded. */
  path: string;
  /** sha256 of that output as it was written: a file that differs now is not copied. */
  outputSha256: string;
}

/**
 * Identical translations shared between pipelines of one database that both opted in: read only
 * from pipelines whose state says they opted in; this pipeline's are offered only while it does.
 */
export interface ReuseAcrossPipelines {
  /** Other opted-in pipelines' done translations of this content, target and settings. */
  translationsOf(unit: {
    sha256: string;
    fingerprint: string;
    target_lang: string;
  }): Promise<SharedTranslation[]>;
  /** A reused job of this pipeline was copied from another pipeline's translation. */
  copiedFrom(jobId: number, from: { pipeline: string; jobId: number }): Promise<void>;
}

/** What the reconciler last applied to the service for one glossary of the manifest. */
export interface AppliedGlossary {
  /** Key of the glossary in the manifest's `glossaries`. */
  key: string;
  glossary_id: string;
  name: string;
  /**
   * sha256 of each dictionary's entries as applied, by pair ("en-de"). The service keeps no version
   * of a glossary: drift is a remote hash that differs from this one.
   */
  hashes: Record<string, string>;
  /** ISO 8601 time of the apply. */
  applied_at: string;
}

export interface GlossaryStateStore {
  getGlossary(key: string): AppliedGlossary | undefined;
  setGlossary(rec: AppliedGlossary): void;
  deleteGlossary(key: string): void;
  allGlossaries(): AppliedGlossary[];
}
