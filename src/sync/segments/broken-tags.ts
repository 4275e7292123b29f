import {
  comparePlaceholders,
  describePlaceholderProblems,
  fromTaggedText,
  taggedStructureProblem,
  type Segment,
} from '../../documents/index.js';
import { icuStructureProblem } from '../../documents/icu-structure.js';
import { placesOf, type QaFinding } from '../../qa/checks.js';

// Translations the segment path's writer refuses: each broke its segment's placeholders or inline
// tags (../../documents/tagged.ts, taggedStructureProblem), or, in a string file, put syntax into
// its text that changes the value's ICU message structure or placeholders (a brace, an apostrophe
// quoting a `#`: ../../documents/icu-structure.ts). The output fails the checks as one the
// `placeholders` check fails (docs/qa.md): quarantined, not delivered, the run exits 1.

export interface BrokenSegment {
  /** The segment's place ("key greeting", "line 3"). */
  where: string;
  /** What of its source it broke. */
  what: BrokenWhat;
  problem: string;
}

type BrokenWhat = 'placeholders or inline tags' | 'ICU message structure';

/** What a tagged translation of `segment` broke (undefined: nothing), for the writer to refuse it. */
export function segmentProblem(
  tagged: string,
  segment: Segment,
  targetLang: string,
): Pick<BrokenSegment, 'what' | 'problem'> | undefined {
  const tags = taggedStructureProblem(tagged, segment);
  if (tags) return { what: 'placeholders or inline tags', problem: tags };
  // A string file's value is written as its pieces joined: what the text put into it is checked as
  // the string writer does (formats/strings/keyed.ts), so that it is refused here, not a write error.
  if (segment.role !== 'string') return undefined;
  const source = segment.pieces.map((p) => p.text).join('');
  const value = fromTaggedText(tagged, segment).join('');
  const icu = icuStructureProblem(source, value, targetLang);
  if (icu) return { what: 'ICU message structure', problem: icu };
  const placeholders = describePlaceholderProblems(comparePlaceholders(source, value));
  return placeholders ? { what: 'placeholders or inline tags', problem: placeholders } : undefined;
}

/** One finding for the output: the first segment's problem, and every place. */
export function brokenFinding(broken: readonly BrokenSegment[]): QaFinding {
  const first = broken[0] as BrokenSegment;
  const more = broken.length > 1 ? ` (and ${broken.length - 1} more segments)` : '';
  return {
    check: 'placeholders',
    message: `the translation broke the ${first.what} of its source: ${first.problem}${more}`,
    where: placesOf(broken.map((b) => b.where)),
  };
}
