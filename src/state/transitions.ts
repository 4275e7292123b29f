import {
  NOT_WRITTEN_BY_LOCSYNC,
  type JobFailure,
  type JobRecord,
  type SpooledDownload,
  type WrittenOutput,
} from './job-types.js';

// What the backends write, decided once for all of them: the fields each named transition of the
// job ledger sets (a pure function of the row and the event), and the grouping of verified marks.

export type JobFields = Partial<Omit<JobRecord, 'id' | 'created_at'>>;

const now = () => new Date().toISOString();

/** No download kept in a spool (the output is written, or the document was given up). */
const NO_SPOOL: JobFields = { spool_path: null, spool_sha256: null, spool_size: null, spool_holder: null };

/** The record of what was written at the output (none: left unrecorded, as before it was kept). */
const writtenFields = (w: WrittenOutput | undefined): JobFields =>
  w ? { output_sha256: w.sha256, output_size: w.size, output_mtime_ms: w.mtimeMs } : {};

/** The latest done job of every output with its record (JobLedger.writtenRecords; both backends). */
export const WRITTEN_RECORDS_SQL = `SELECT id, output_path, output_sha256, output_size, output_mtime_ms FROM jobs j
  WHERE status = 'done' AND id = (SELECT MAX(id) FROM jobs k WHERE k.output_path = j.output_path AND k.status = 'done')
  ORDER BY output_path`;

/**
 * The failing upload counted no attempt as it left (uploadStarted): it never left, or it was a lost
 * download's re-upload. A failure that counts no attempt then gives none back (an earlier upload's
 * stays counted); otherwise it gives back the one its upload counted.
 */
const countedNone = (f: JobFailure): boolean => !!f.unsent || f.reupload === 'lost-download';

export const transitions = {
  takenUp: (_job: JobRecord, runId: number, request: string): JobFields => ({ request, run_id: runId }),
  unconfirmedUpload: (job: JobRecord): JobFields => ({ unconfirmed_uploads: job.unconfirmed_uploads + 1 }),
  reused: (fromJobId: number, written?: WrittenOutput): JobFields => ({
    ...writtenFields(written),
    status: 'done',
    reused_from: fromJobId,
    billed_characters: 0,
    finished_at: now(),
  }),
  // An adopted output was not written by locsync: a person's until a translation replaces it.
  adopted: (): JobFields => ({
    ...writtenFields(NOT_WRITTEN_BY_LOCSYNC),
    status: 'done',
    billed_characters: 0,
    finished_at: now(),
  }),
  uploadStarted: (job: JobRecord, runId: number, reupload?: 'lost-download'): JobFields => ({
    status: 'pending',
    attempts: job.attempts + (reupload === 'lost-download' ? 0 : 1),
    document_id: null,
    document_key: null,
    upload_started_at: now(),
    download_started_ms: null,
    ...NO_SPOOL,
    error: null,
    error_kind: null,
    run_id: runId,
  }),
  uploaded: (documentId: string, documentKey: string): JobFields => ({
    status: 'uploaded',
    document_id: documentId,
    document_key: documentKey,
  }),
  downloading: (billedCharacters: number, startedMs: number): JobFields => ({
    billed_characters: billedCharacters,
    download_started_ms: startedMs,
  }),
  spooled: (s: SpooledDownload): JobFields => ({
    spool_path: s.path,
    spool_sha256: s.sha256,
    spool_size: s.size,
    spool_holder: s.holder,
  }),
  done: (billedCharacters: number, written?: WrittenOutput): JobFields => ({
    ...writtenFields(written),
    ...NO_SPOOL,
    status: 'done',
    billed_characters: billedCharacters,
    finished_at: now(),
    error: null,
    error_kind: null,
  }),
  lostDownload: (job: JobRecord): JobFields => ({
    status: 'pending',
    document_id: null,
    document_key: null,
    download_started_ms: null,
    ...NO_SPOOL,
    lost_downloads: job.lost_downloads + 1,
    error: `lost download of document ${job.document_id ?? ''}`,
    error_kind: 'lost-download',
  }),
  failed: (job: JobRecord, f: JobFailure): JobFields => ({
    ...(f.keepDocument ? {} : { status: 'failed' as const, document_key: null, ...NO_SPOOL }),
    // An upload whose answer was lost may have been accepted and billed: counted for good, so that
    // report and status still show it after the retry succeeds.
    ...(f.kind === 'maybe-accepted' ? { unconfirmed_uploads: job.unconfirmed_uploads + 1 } : {}),
    error: f.error,
    error_kind: f.kind,
    ...(!f.countsAttempt
      ? countedNone(f)
        ? {}
        : { attempts: Math.max(0, job.attempts - 1) }
      : f.keepDocument && f.retriedKept
        ? { attempts: job.attempts + 1 }
        : {}),
  }),
  /** undefined: the row never led to an upload and is removed. */
  superseded: (job: JobRecord, error: string): JobFields | undefined =>
    neverSent(job) ? undefined : { status: 'failed', document_key: null, error, error_kind: 'superseded' },
};

/** The row never led to a billed call (no attempt, no upload started, no document). */
export function neverSent(job: JobRecord): boolean {
  return job.attempts === 0 && !job.upload_started_at && !job.document_id;
}

/**
 * Verified marks written per statement: the first scan after a run with much work marks 100,000s
 * of files, in a statement per this many (not one per file, nor one list of all of them at once).
 */
export const VERIFY_BATCH = 4096;

/** Done rows in the order of their ids: the latest of each output (JobLedger.latestDoneOfEach). */
export function latestPerOutput<R extends Pick<JobRecord, 'output_path'>>(rows: readonly R[]): R[] {
  const latest = new Map<string, R>();
  for (const r of rows) latest.set(r.output_path, r);
  return [...latest.values()];
}
