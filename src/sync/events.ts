import { EventEmitter } from 'node:events';
import type { OutputRef, PlannedAction, SkipReason } from './plan/types.js';
import type { FailureKind, SyncSummary } from './summary.js';

// Progress events of a run: the progress view, Prometheus metrics (watch mode) and tests subscribe
// to them. Events carry mapping/file/target/document_id, never a document_key.

export type { SkipReason } from './plan/types.js';
export type { FailureKind } from './summary.js';

/** Identifies one (source file, target) unit of work and its job. */
export interface JobRef extends OutputRef {
  /** state.db job id (0 for a unit with no job row, e.g. a stale output left alone). */
  jobId: number;
  documentId?: string;
}

export interface SyncEventMap {
  'run:start': [{ runId: number }];
  /** The executor takes a planned action (in plan order; re-planned units come later). */
  action: [PlannedAction];
  'scan:start': [{ mapping: string }];
  /** Every few hundred files and at the end of a mapping. */
  'scan:progress': [{ mapping: string; files: number; hashed: number }];
  'scan:done': [{ mapping: string; files: number; hashed: number; bytesHashed: number }];
  'file:skipped': [{ mapping: string; file: string; reason: SkipReason; message: string }];
  /** A mapping's source folder is away (missing, or empty where files were): the run fails. */
  'source:missing': [{ mapping: string; message: string }];
  'file:removed': [{ mapping: string; file: string; outputsDeleted: string[] }];
  /**
   * Watch: a source file appeared that the state did not know, or one was deleted (`recorded`: the
   * state knew it, so the last scan counted it). Live file counts follow these between scans.
   */
  'source:changed': [{ mapping: string; file: string; change: 'added' | 'removed'; recorded: boolean }];
  'job:queued': [JobRef & { resumed: boolean }];
  'job:uploading': [
    JobRef & { attempt: number; reupload?: 'lost-download' | 'unconfirmed-upload' | 'lost-answer' },
  ];
  'job:uploaded': [JobRef & { documentId: string }];
  'job:translating': [
    JobRef & { documentId: string; status: 'queued' | 'translating'; secondsRemaining?: number },
  ];
  'job:downloading': [JobRef & { documentId: string }];
  'job:done': [JobRef & { documentId: string; billedCharacters: number; bytes: number }];
  'job:reused': [JobRef & { fromJobId: number; fromOutput: string }];
  /**
   * A person edited the output: this job's translation (its job:done or job:reused follows) was
   * written beside it, at `beside` (relative to the manifest folder, like `output`).
   */
  'job:beside': [JobRef & { beside: string }];
  /** The output checks' verdict on a download (docs/qa.md): flagged (delivered) or failed (not). */
  'job:qa': [JobRef & { outcome: 'pass' | 'flagged' | 'failed'; findings: string[] }];
  'job:stale': [JobRef];
  'job:lost': [JobRef & { documentId: string; message: string }];
  'job:failed': [JobRef & { kind: FailureKind; error: string; willRetry: boolean }];
  /** The run was stopped before this unit finished: not a failure; the next run resumes it. */
  'job:left': [JobRef & { uploaded: boolean }];
  billed: [{ characters: number; total: number; mapping: string; file: string; target: string }];
  /** Style lists changed on the service (policy fail): their targets are not translated this run. */
  'styles:drift': [{ lists: string[]; messages: string[] }];
  /** Uploads stopped for the rest of the run (quota, auth, stop()). */
  'uploads:stopped': [{ reason: string; kind: FailureKind }];
  /** Stopped by a signal: work in flight may finish until graceEndsAt (epoch ms). */
  'run:stopping': [{ graceEndsAt: number }];
  /** A second signal: the run stops waiting for translations (uploads already sent are awaited). */
  'run:stop-waiting': [Record<string, never>];
  'run:summary': [SyncSummary];
}

/** The typed event sink of a run. */
export class SyncEvents extends EventEmitter<SyncEventMap> {}

export function createSyncEvents(): SyncEvents {
  return new SyncEvents();
}
