import type { OutputRef } from '../plan/types.js';

// What the executor reports when a planned action no longer holds: this (file, target) must be
// decided again, and why. The executor does not plan; it hands these over as data and the run loop
// (src/sync/sync-run.ts) plans the unit again and feeds the new actions back in.

/** Why a (file, target) is decided again. */
export type DecideAgainBecause =
  | 'work-on-output-done' // its output had work in flight when it was planned (decided after it)
  | 'identical-content-done' // an identical document was being translated: now maybe a copy
  | 'source-replaced' // the source's bytes are not what was planned (before the row, or the upload)
  | 'job-moved-on' // the recorded job it continues was finished or taken since it was planned
  | 'donor-failed' // the translation it was to copy failed
  | 'donor-changed' // the output it was to copy holds other bytes than its job wrote
  | 'output-moved-on'; // the output holds another translation than the one it was planned against

/**
 * The reasons that are waits, not changes found: the unit's work waited for other work (its own
 * output's, an identical document's) and looks again at what that work left. Each wait ends when
 * the work it waited for does, so they need no bound; only changes found count towards the run's
 * limit of looks (src/sync/sync-run.ts), else a unit in flight while a worker plans the pipeline
 * again and again (take-overs every third of the lease) fails once its work is done.
 */
export const WAITED_ONLY: ReadonlySet<DecideAgainBecause> = new Set([
  'work-on-output-done',
  'identical-content-done',
]);

export interface DecideAgain {
  ref: OutputRef;
  because: DecideAgainBecause;
}

/**
 * The executor's reports to the run loop. A report put is resolved once the run loop has taken it
 * up (its new actions scheduled, or nothing to do): the work on its output waits for that, so later
 * work on the same output stays in order and drain() waits for it too.
 */
export class DecideAgainQueue {
  private readonly waiting: Array<{ report: DecideAgain; taken: () => void }> = [];
  private wake: (() => void) | undefined;
  private closed = false;

  /** Report a unit to decide again; resolves once the run loop took it up. */
  put(report: DecideAgain): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((taken) => {
      this.waiting.push({ report, taken });
      this.wake?.();
    });
  }

  /** The next report and its acknowledgement (undefined once closed and empty). */
  async next(): Promise<{ report: DecideAgain; taken: () => void } | undefined> {
    while (!this.waiting.length) {
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    return this.waiting.shift();
  }

  /** No more reports: those waiting are acknowledged unhandled (the run is over). */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.taken();
    this.wake?.();
  }
}
