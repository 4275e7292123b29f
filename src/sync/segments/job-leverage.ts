import { memoryLeverage } from '../../billing/leverage.js';
import type { JobLeverageCounts } from '../../state/leverage-ledger.js';
import type { Recalled } from '../../state/types.js';

// Where a segment job's segments came from in its run, counted as the plan counts them
// (./quote.ts, src/billing/leverage.ts) so that a run that goes as planned agrees with its plan:
// a segment the memory held when the job began is from the memory (reviewed or imported, or
// machine), unless this run bought it (another job of the run, or an earlier drive of this one);
// every other segment was bought in this run. The ledger tells which of those this job's answered
// text requests bought (new) and which repeat one bought once (src/state/leverage-ledger.ts).

export function jobLeverage(
  segments: ReadonlyArray<{ key: string; characters: number }>,
  recalled: ReadonlyMap<string, Recalled>,
  runId: number,
): JobLeverageCounts {
  const c: JobLeverageCounts = {
    run: { segments: 0, characters: 0 },
    reviewed: { segments: 0, characters: 0 },
    machine: { segments: 0, characters: 0 },
  };
  for (const s of segments) {
    const r = recalled.get(s.key);
    const kind = !r || (r.origin === 'service' && r.run_id === runId) ? 'run' : memoryLeverage(r.origin);
    const into = kind === 'run' ? c.run : kind === 'memory_machine' ? c.machine : c.reviewed;
    into.segments++;
    into.characters += s.characters;
  }
  return c;
}
