import { EventEmitter } from 'node:events';
import type { SyncSummary } from './summary.js';

// Progress events of a sync session: the progress view (issue 8), Prometheus metrics (watch mode)
// and tests subscribe to them. Events carry mapping/file/target/document_id, never a document_key.

/** Identifies one (source file, target) unit of work. */
export interface JobRef {
  /** state.db job id (0 for a unit with no job row, e.g. a stale output left alone). */
  jobId: number;
  mapping: string;
  /** Source path relative to the mapping's source folder. */
  file: string;
  target: string;
  /** Output path relative to the manifest folder. */
  output: string;
  documentId?: string;
}

export type SkipReason =
  | 'unsupported' // extension the service does not translate
  | 'unreadable' // permission denied, vanished while reading
  | 'symlink-loop' // a symlinked folder leading back into the tree
  | 'collision' // two sources render to the same output path
  | 'path-escape' // the output would leave its output root
  | 'gave-up'; // failed max_attempts times on earlier runs

export type FailureKind =
  | 'job-error' // the service reported status error
  | 'maybe-accepted' // upload failed after the body was sent: may be billed
  | 'quota' // 456
  | 'auth' // 401/403
  | 'rejected' // 400/413...: the service refused the upload
  | 'transient' // 429/5xx/network after every retry; resumes next run
  | 'output' // writing the output failed
  | 'collision'
  | 'path-escape'
  | 'gave-up'
  | 'stopped'; // the run was stopped before this job finished

export interface SyncEventMap {
  'run:start': [{ runId: number; dryRun: boolean }];
  'scan:start': [{ mapping: string }];
  /** Every few hundred files and at the end of a mapping. */
  'scan:progress': [{ mapping: string; files: number; hashed: number }];
  'scan:done': [{ mapping: string; files: number; hashed: number; bytesHashed: number }];
  'file:skipped': [{ mapping: string; file: string; reason: SkipReason; message: string }];
  'file:removed': [{ mapping: string; file: string; outputsDeleted: string[] }];
  'job:queued': [JobRef & { resumed: boolean }];
  'job:uploading': [JobRef & { attempt: number; reupload?: 'lost-download' | 'unconfirmed-upload' }];
  'job:uploaded': [JobRef & { documentId: string }];
  'job:translating': [
    JobRef & { documentId: string; status: 'queued' | 'translating'; secondsRemaining?: number },
  ];
  'job:downloading': [JobRef & { documentId: string }];
  'job:done': [JobRef & { documentId: string; billedCharacters: number; bytes: number }];
  'job:reused': [JobRef & { fromJobId: number; fromOutput: string }];
  'job:stale': [JobRef];
  'job:lost': [JobRef & { documentId: string; message: string }];
  'job:failed': [JobRef & { kind: FailureKind; error: string; willRetry: boolean }];
  billed: [{ characters: number; total: number; mapping: string; file: string; target: string }];
  /** Uploads stopped for the rest of the run (quota, auth, stop()). */
  'uploads:stopped': [{ reason: string }];
  'run:summary': [SyncSummary];
}

/** The typed event sink of a sync session. */
export class SyncEvents extends EventEmitter<SyncEventMap> {}

export function createSyncEvents(): SyncEvents {
  return new SyncEvents();
}
