import type { WrittenRecordRow } from '../state/types.js';
import { outputCondition } from '../sync/run/edited-output.js';
import { reviewedPlaces } from '../sync/reviewed-segments.js';
import type { Provenance, Who } from './compare.js';

// Whose wording each translation on the review page is (docs/review.md): what locsync wrote is the
// machine's, except the segments a person corrected that it kept (the segment path's record of its
// delivery names them); an output that differs from what locsync wrote is a person's edit; the
// version a person kept in a conflict is theirs, the new translation beside it the machine's.

/** Every segment of a version is `who`'s. */
export const wholly =
  (who: Who): Provenance =>
  () =>
    who;

/**
 * Whose the segments of the output at `outputAbs` (`outputRel`) are now, given its record of what was
 * written (undefined: none, not known).
 */
export async function outputNowBy(
  stateFolder: string,
  outputRel: string,
  outputAbs: string,
  record: WrittenRecordRow | undefined,
): Promise<Provenance | undefined> {
  const condition = await outputCondition(outputAbs, record);
  if (condition === 'edited') return wholly('person');
  if (condition !== 'as-written' || !record) return undefined;
  const people = reviewedPlaces(stateFolder, outputRel, record.id);
  return (s) => (people?.has(s.where) ? 'person' : 'machine');
}
