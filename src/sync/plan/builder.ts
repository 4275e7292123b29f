import type { Mapping } from '../../manifest/sections/mapping.js';
import type { StoredDigest } from '../../state/types.js';
import {
  PLAN_VERSION,
  contentKey,
  type OutputRef,
  type Plan,
  type PlanInputs,
  type PlannedAction,
  type SkippedFile,
  type TranslateAction,
} from './types.js';

// A plan being put together: actions in execution order, counts, what the scan observed. Identical
// content with identical settings is translated once per plan: later units of it copy the first.

export class PlanBuilder {
  readonly plan: Plan;
  /** content key → output of its first planned translation (or resume) in this plan. */
  private readonly plannedContent = new Map<string, string>();
  /** Jobs this plan resumes (a scan finding the same job adds nothing). */
  readonly resumed = new Set<number>();
  /** Sources gone since the last run, decided once every mapping is scanned (see planRemovals). */
  readonly gone: Array<{ mapping: Mapping; relPath: string }> = [];
  /** Units whose output has work in flight: decided again once that work is done. */
  readonly deferred: OutputRef[] = [];
  /** Content digests made while planning, by sha256 (also in the observations, to be recorded). */
  readonly digests = new Map<string, StoredDigest>();

  constructor(inputs: PlanInputs) {
    this.plan = {
      version: PLAN_VERSION,
      inputs,
      actions: [],
      files: 0,
      hashed: 0,
      unchanged: 0,
      unsupported: [],
      skipped: [],
      observations: { hashed: [], verified: [], snapshots: [] },
    };
  }

  add(action: PlannedAction): void {
    this.plan.actions.push(action);
  }

  /** The output already planned to hold this content, if any (the unit then copies it). */
  plannedDonor(sha256: string, fingerprint: string, output: string): string | undefined {
    const first = this.plannedContent.get(contentKey(sha256, fingerprint));
    return first !== undefined && first !== output ? first : undefined;
  }

  /** `output` is planned to hold this content (a translation or a resumed upload). */
  plannedContentAt(sha256: string, fingerprint: string, output: string): void {
    const k = contentKey(sha256, fingerprint);
    if (!this.plannedContent.has(k)) this.plannedContent.set(k, output);
  }

  translate(action: TranslateAction): void {
    const donor = this.plannedDonor(action.source.sha256, action.settings.fingerprint, action.ref.output);
    if (donor !== undefined) {
      this.add({
        kind: 'reuse',
        ref: action.ref,
        from: donor,
        donor: 'planned',
        source: action.source,
        settings: action.settings,
      });
      return;
    }
    this.plannedContentAt(action.source.sha256, action.settings.fingerprint, action.ref.output);
    this.add(action);
  }

  /** A content digest was made: kept for this plan's decisions and recorded with the plan. */
  digested(d: StoredDigest): void {
    if (this.digests.has(d.sha256)) return;
    this.digests.set(d.sha256, d);
    (this.plan.observations.digests ??= []).push(d);
  }

  unsupported(item: SkippedFile): void {
    this.plan.unsupported.push(item);
  }

  skipped(item: SkippedFile): void {
    this.plan.skipped.push(item);
  }
}
