import type { Logger } from '../../log/logger.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { SyncState } from '../../state/types.js';
import type { SyncEvents } from '../events.js';
import type { ImportedWording } from '../imported-wording.js';
import type { OutputClaims } from './claims.js';
import type { ManifestFolders } from './folders.js';
import type { OutputIndex } from './output-index.js';
import type { OutputListing } from './output-listing.js';
import type { TargetSettings } from './settings.js';
import type { RetranslateScope } from './retranslate.js';

/** What the planning steps share for one run. */
export interface PlanContext {
  readonly loaded: LoadedManifest;
  readonly state: SyncState;
  readonly logger: Logger;
  readonly events: SyncEvents;
  readonly folders: ManifestFolders;
  readonly index: OutputIndex;
  readonly claims: OutputClaims;
  settings: TargetSettings;
  /** --retranslate: which existing outputs are translated again. */
  readonly retranslate: ReadonlySet<RetranslateScope>;
  /** --retry-failed-qa: outputs that failed a hard check (docs/qa.md) are bought again. */
  readonly retryFailedQa: boolean;
  /**
   * Outputs with a person's wording imported since their delivery (src/sync/imported-wording.ts),
   * by output path: written again from the memory while the job noted is still their latest.
   */
  readonly importedWording: ReadonlyMap<string, ImportedWording>;
  /** Whether an output has work in flight (its units are decided after it). */
  busy(output: string): boolean;
  /** Whether no work is in flight at all. */
  idle(): boolean;
  /** Whether this run found an output changed when it copied it (no reuse donor for the run). */
  refusedDonor(output: string): boolean;
  /** During a mapping's scan: its output folders listed once each. */
  listing: OutputListing | undefined;
}
