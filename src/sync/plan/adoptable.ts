// `locsync state adopt`: after the state was lost or emptied, the outputs already on disk are
// recorded as done for the current settings instead of being bought again. Only an output written
// after its source was last changed can be vouched for; everything else is listed and left to sync.

/** The parts of a planned upload this decision reads (src/sync/plan/types.ts TranslateAction). */
export interface AdoptCandidate {
  kind: string;
  reason?: string;
  ref: { mapping: string; file: string; target: string; output: string };
}

export interface AdoptDecision<A> {
  /** Outputs recorded as done, billing nothing. */
  adopt: A[];
  /** Planned uploads adopt cannot vouch for, with why (sync will translate them, billed). */
  notVouched: Array<{ action: A; why: string }>;
}

/**
 * Splits a plan's uploads of never-recorded outputs (reason new) into those whose output exists and
 * is at least as new as its source (adopted) and the rest. `mtimes` answers the modification times
 * (ms) of the source and the output of an action; undefined when the file does not exist.
 */
export function decideAdoption<A extends AdoptCandidate>(
  actions: readonly A[],
  mtimes: (a: A) => { source: number | undefined; output: number | undefined },
): AdoptDecision<A> {
  const out: AdoptDecision<A> = { adopt: [], notVouched: [] };
  for (const a of actions) {
    if (a.kind !== 'translate') continue;
    if (a.reason !== 'new') {
      out.notVouched.push({ action: a, why: `the state has a record of it (${a.reason ?? 'planned'})` });
      continue;
    }
    const t = mtimes(a);
    if (t.output === undefined) out.notVouched.push({ action: a, why: 'no output on disk' });
    else if (t.source === undefined) out.notVouched.push({ action: a, why: 'source unreadable' });
    else if (t.output < t.source)
      out.notVouched.push({ action: a, why: 'the source changed after the output was written' });
    else out.adopt.push(a);
  }
  return out;
}
