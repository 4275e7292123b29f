import { placesOf, type QaFinding } from '../../qa/checks.js';

// Translations the segment path's writer refuses: each broke its segment's placeholders or inline
// tags (../../documents/tagged.ts, taggedStructureProblem). The output fails the checks as one the
// `placeholders` check fails (docs/qa.md): quarantined, not delivered, the run exits 1.

export interface BrokenSegment {
  /** The segment's place ("key greeting", "line 3"). */
  where: string;
  problem: string;
}

/** One finding for the output: the first segment's problem, and every place. */
export function brokenFinding(broken: readonly BrokenSegment[]): QaFinding {
  const first = broken[0] as BrokenSegment;
  const more = broken.length > 1 ? ` (and ${broken.length - 1} more segments)` : '';
  return {
    check: 'placeholders',
    message: `the translation broke the placeholders or inline tags of its source: ${first.problem}${more}`,
    where: placesOf(broken.map((b) => b.where)),
  };
}
