import type { UploadDocumentRequest } from '../../api/types.js';
import type { QaResult } from '../../qa/checks.js';
import type { DriveState } from './job-ends.js';

// One drive of a job through its lifecycle (./job-lifecycle.ts), as its method and the delivery
// step hold it.

/** What a job needs to be translated (again): its source and its request. */
export interface JobSource {
  absPath: string | undefined;
  request: UploadDocumentRequest | undefined;
}

/** How the executor hands a job over. */
export interface DriveFlags {
  /** A recorded document (an earlier run's, or a dead worker's) is collected, not uploaded. */
  resumed: boolean;
  /** A download slot is already taken for it (a resumed document). */
  holdsSlot: boolean;
  /** An earlier run stopped after the job's billed calls started (a crash). */
  unconfirmed?: boolean;
  /** The answer of one of its calls was lost in this run: it is its turn to send again. */
  lostAnswer?: boolean;
}

/** One drive: the job as last recorded and what this run holds for it. */
export interface Drive extends DriveState {
  flags: DriveFlags;
  outputAbs: string;
  /** The source (absolute), for the output checks; undefined when unknown. */
  sourceAbs: string | undefined;
  /** The output checks' verdict on the translation (set once it passed them). */
  qa?: QaResult;
}
