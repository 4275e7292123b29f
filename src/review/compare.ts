import { commonPairs, merged, wordDiff, type DiffPart } from './diff.js';
import type { SegmentLine } from './read-segments.js';

// One document and language compared: which source segment became which (by their text, so an
// inserted paragraph does not shift every row after it), and for those whose source or translation
// changed, the row a reviewer reads: the source, the previous translation and the new one, with the
// changed words marked.

/** The two versions of one document and language. A side unknown (not kept, not in git) is null. */
export interface Versions {
  oldSource: SegmentLine[] | null;
  oldOutput: SegmentLine[] | null;
  newSource: SegmentLine[] | null;
  newOutput: SegmentLine[];
}

export interface ReviewRow {
  /** changed: a segment with a new source or translation; added / removed: a segment new or gone. */
  kind: 'changed' | 'added' | 'removed';
  where: string;
  /** The source with its changes marked (del: gone, ins: new); null: not known. */
  source: DiffPart[] | null;
  /** The previous translation, what is gone marked (null: none, a new segment). */
  previous: DiffPart[] | null;
  /** The new translation, what is new marked (null: none, a removed segment). */
  next: DiffPart[] | null;
}

export interface Comparison {
  rows: ReviewRow[];
  /** Segments whose source and translation are as before (not shown). */
  unchanged: number;
}

/** A segment of one version: its source (when known) and translation, by position. */
interface Unit {
  source: string | null;
  translation: string;
  where: string;
}

function units(source: SegmentLine[] | null, output: SegmentLine[]): Unit[] {
  return output.map((o, i) => ({ source: source?.[i]?.text ?? null, translation: o.text, where: o.where }));
}

const same = (text: string): DiffPart[] => (text ? [{ kind: 'same', text }] : []);

function row(before: Unit | undefined, after: Unit | undefined): ReviewRow {
  const kind = !before ? 'added' : !after ? 'removed' : 'changed';
  let source: DiffPart[] | null = null;
  const bs = before?.source ?? null;
  const as = after?.source ?? null;
  if (bs !== null && as !== null) source = wordDiff(bs, as);
  else if (as !== null) source = same(as);
  else if (bs !== null) source = [{ kind: 'del', text: bs }];
  if (before && after) {
    const d = wordDiff(before.translation, after.translation);
    return {
      kind,
      where: after.where,
      source,
      previous: merged(d.filter((p) => p.kind !== 'ins')),
      next: merged(d.filter((p) => p.kind !== 'del')),
    };
  }
  return {
    kind,
    where: (after ?? before)!.where,
    source,
    previous: before ? [{ kind: 'del', text: before.translation }] : null,
    next: after ? [{ kind: 'ins', text: after.translation }] : null,
  };
}

export function compareVersions(v: Versions): Comparison {
  const before = units(v.oldSource, v.oldOutput ?? []);
  const after = units(v.newSource, v.newOutput);
  // Matched by source text when both sources are known, else by translation text.
  const bySource = v.oldSource !== null && v.newSource !== null;
  const key = (u: Unit) => (bySource ? u.source : u.translation);
  const pairs = commonPairs(before, after, (x, y) => key(x) === key(y));
  const rows: ReviewRow[] = [];
  let unchanged = 0;
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [before.length, after.length] as [number, number]]) {
    // Between two matches: edited segments, paired by position; the rest added or removed.
    while (i < pi && j < pj) rows.push(row(before[i++], after[j++]));
    while (i < pi) rows.push(row(before[i++], undefined));
    while (j < pj) rows.push(row(undefined, after[j++]));
    const b = before[pi];
    const a = after[pj];
    if (b && a) {
      const sourceAsBefore = b.source === null || a.source === null || b.source === a.source;
      if (b.translation === a.translation && sourceAsBefore) unchanged++;
      else rows.push(row(b, a));
    }
    i = pi + 1;
    j = pj + 1;
  }
  return { rows, unchanged };
}
