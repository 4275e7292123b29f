import type { Logger } from '../../log/logger.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { SyncState } from '../../state/types.js';
import type { OutputIndex } from '../plan/output-index.js';
import type { RunControl } from './control.js';
import type { JobLifecycle } from './job-lifecycle.js';
import type { DownloadSlotPool, WorkerPlacePool } from './places.js';
import type { LiveSummary } from './live-summary.js';
import type { RunLedger } from './run-ledger.js';

/** What the executor and its steps (claims, reuse, removals) work with. */
export interface ExecutorDeps {
  loaded: LoadedManifest;
  state: SyncState;
  index: OutputIndex;
  /** The one writer of job rows (and of the index and counts that follow from them). */
  ledger: RunLedger;
  /** Each job's one lifecycle, whatever its method. */
  driver: JobLifecycle;
  report: LiveSummary;
  control: RunControl;
  places: WorkerPlacePool;
  slots: DownloadSlotPool;
  logger: Logger;
  runId: number;
  /** sync --overwrite-edits: outputs edited by people are replaced (./edited-output.ts). */
  overwriteEdits?: boolean;
}
