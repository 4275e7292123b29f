import type { Recalled, SegmentOrigin } from './memory-types.js';

// Which of two remembered translations of one key a segment gets: a person's (reviewed: an edit of
// an output, an aligned translation) before a translation memory's (imported), before the service's.

const RANK: Record<SegmentOrigin, number> = { reviewed: 0, imported: 1, service: 2 };

export function preferred(kept: Recalled | undefined, other: Recalled): Recalled {
  const next = { translation: other.translation, origin: other.origin, run_id: other.run_id };
  return kept && RANK[kept.origin] <= RANK[other.origin] ? kept : next;
}
