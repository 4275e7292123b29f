import { emptySummary, type SkippedItem, type SyncSummary } from '../summary.js';
import type { OutputRef, Plan, StaleReason, TranslateReason } from './types.js';

// A plan as people read it: actions grouped by what they do (`plan`'s text and the `files` part of
// `plan --json`), and the summary a dry run prints.

/** What a sync would do, grouped. */
export interface SyncPlan {
  toTranslate: Array<OutputRef & { why: TranslateReason }>;
  toReuse: Array<OutputRef & { from: string }>;
  toResume: OutputRef[];
  /** Sources saved again without a change of content: outputs kept, nothing uploaded. */
  resaved: OutputRef[];
  /** reason: style or settings; because: what changed, for people ("glossary changed"). */
  stale: Array<OutputRef & { reason: StaleReason; because?: string }>;
  unchanged: number;
  unsupported: SkippedItem[];
  skipped: SkippedItem[];
  gaveUp: OutputRef[];
  /** Outputs whose last translation failed the output checks: not bought again unless asked. */
  qaFailed: OutputRef[];
  toDelete: string[];
}

export function groupPlan(plan: Plan): SyncPlan {
  const view: SyncPlan = {
    toTranslate: [],
    toReuse: [],
    toResume: [],
    resaved: [],
    stale: [],
    unchanged: plan.unchanged,
    unsupported: [...plan.unsupported],
    skipped: [...plan.skipped],
    gaveUp: [],
    qaFailed: [],
    toDelete: [],
  };
  for (const a of plan.actions) {
    switch (a.kind) {
      case 'translate':
        view.toTranslate.push({ ...a.ref, why: a.reason });
        break;
      case 'reuse':
        view.toReuse.push({ ...a.ref, from: a.from });
        break;
      case 'resume':
        view.toResume.push(a.ref);
        break;
      case 'resaved':
        view.resaved.push(a.ref);
        break;
      case 'stale':
        view.stale.push({ ...a.ref, reason: a.reason, ...(a.because ? { because: a.because } : {}) });
        break;
      case 'skip':
        // Neither is sent again until its file (or, refused for good, its settings) changes.
        if (a.reason === 'gave-up' || a.reason === 'needs-fix') view.gaveUp.push(a.ref);
        else {
          if (a.reason === 'qa-failed') view.qaFailed.push(a.ref);
          view.skipped.push({
            mapping: a.ref.mapping,
            file: a.ref.file,
            reason: a.reason,
            message: a.message,
          });
        }
        break;
      case 'delete':
        view.toDelete.push(a.ref.output);
        break;
      case 'forget':
        break;
    }
  }
  return view;
}

/** The summary of a dry run: what `sync` would do with this plan. */
export function summaryOfPlan(plan: Plan, durationMs: number): SyncSummary {
  const s = emptySummary(0, true);
  s.files = plan.files;
  s.hashed = plan.hashed;
  s.unchanged = plan.unchanged;
  s.unsupported = [...plan.unsupported];
  s.skipped = [...plan.skipped];
  s.durationMs = durationMs;
  for (const a of plan.actions) {
    if (a.kind === 'translate') {
      s.translated++;
      if (a.reason === 'stale') s.stale++;
    } else if (a.kind === 'reuse') s.reused++;
    else if (a.kind === 'resaved') s.resaved++;
    else if (a.kind === 'resume') s.resumed++;
    else if (a.kind === 'stale') s.stale++;
    else if (a.kind === 'skip')
      s.failed.push({
        mapping: a.ref.mapping,
        file: a.ref.file,
        target: a.ref.target,
        kind: a.reason,
        error: a.message,
        willRetry: false,
      });
  }
  return s;
}
