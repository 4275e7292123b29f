import { printable } from '../../log/printable.js';
import type { OutputRef, PlannedAction } from '../plan/types.js';

// `sync --plan plan.json` carries out the plan a person approved and nothing else. The saved plan is
// checked once before the run starts (src/cli/saved-plan.ts); this holds the run to it while it
// goes on: work planned again during the run (a source rewritten while the run waited, a copy whose
// donor failed, a rescan for work other workers left) may upload only what the approved plan
// priced, each output with the content (sha256) it was approved with. Anything else is refused,
// named, for a new plan: the approval was of that price.

/** What an output was approved to be translated from. */
const keyOf = (output: string, sha256: string) => `${output}\0${sha256}`;

export class HeldPlan {
  private readonly approved = new Set<string>();
  private readonly approvedSha = new Map<string, string>();

  constructor(
    readonly file: string,
    actions: readonly PlannedAction[],
  ) {
    for (const a of actions)
      if (a.kind === 'translate') {
        this.approved.add(keyOf(a.ref.output, a.source.sha256));
        this.approvedSha.set(a.ref.output, a.source.sha256);
      }
  }

  /** The actions the approved plan covers, and the billed ones it does not (with why, for people). */
  split(actions: readonly PlannedAction[]): {
    kept: PlannedAction[];
    refused: Array<{ ref: OutputRef; message: string }>;
  } {
    const kept: PlannedAction[] = [];
    const refused: Array<{ ref: OutputRef; message: string }> = [];
    for (const a of actions) {
      if (a.kind !== 'translate' || this.approved.has(keyOf(a.ref.output, a.source.sha256))) {
        kept.push(a);
        continue;
      }
      const planned = this.approvedSha.get(a.ref.output);
      refused.push({
        ref: a.ref,
        message:
          (planned
            ? `${printable(a.source.path)} is not what the approved plan ${this.file} priced (sha256 ${planned.slice(0, 12)}…, now ${a.source.sha256.slice(0, 12)}…: rewritten since)`
            : `${printable(a.source.path)} -> ${a.ref.target} is not in the approved plan ${this.file}`) +
          `: not uploaded; make a new plan to approve: locsync plan -out ${this.file}`,
      });
    }
    return { kept, refused };
  }
}
