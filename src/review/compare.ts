import { commonPairs, merged, wordDiff, type DiffPart, type DiffPiece } from './diff.js';
import type { SegmentLine } from './segment-lines.js';

// One document and language compared: which source segment became which, and for those whose
// source or translation changed, the row a reviewer reads: the source, the previous translation and
// the new one, with the changed words marked and every placeholder and inline code in its place. A
// string file's values are matched by their keys (a changed key shows its own previous translation;
// keys added and removed are rows apart); other documents' segments by their text, so an inserted
// paragraph does not shift every row after it.

/** Whose wording a translation is: a person's (a reviewer's correction) or the machine's. */
export type Who = 'person' | 'machine';

/** Whose wording the segment at `where` (with `key`) of one version is; undefined: not known. */
export type Provenance = (segment: { where: string; key?: string }) => Who | undefined;

/** The two versions of one document and language. A side unknown (not kept, not in git) is null. */
export interface Versions {
  oldSource: SegmentLine[] | null;
  oldOutput: SegmentLine[] | null;
  newSource: SegmentLine[] | null;
  newOutput: SegmentLine[];
  /** Whose each previous and each new translation is, where that is known. */
  previousBy?: Provenance;
  nextBy?: Provenance;
}

export interface ReviewRow {
  /** changed: a segment with a new source or translation; added / removed: a segment new or gone. */
  kind: 'changed' | 'added' | 'removed';
  where: string;
  /** A string file's key of the value (its rows are matched by it). */
  key?: string;
  /** The source with its changes marked (del: gone, ins: new); null: not known. */
  source: DiffPart[] | null;
  /** The previous translation, what is gone marked (null: none, a new segment). */
  previous: DiffPart[] | null;
  /** The new translation, what is new marked (null: none, a removed segment). */
  next: DiffPart[] | null;
  /** Whose the previous and the new translation are (absent: not known). */
  previous_by?: Who;
  next_by?: Who;
  /** The XLIFF unit id of the segment now (absent: removed, or not known). */
  unit?: string;
}

export interface Comparison {
  rows: ReviewRow[];
  /** Segments whose source and translation are as before (not shown). */
  unchanged: number;
}

/** A segment of one version: its source (when known) and translation. */
interface Unit {
  source: SegmentLine | null;
  translation: SegmentLine;
  where: string;
  key?: string;
}

/** Units by position (documents), or by key where both sides have keys (string files). */
function units(source: SegmentLine[] | null, output: SegmentLine[]): Unit[] {
  const byKey = new Map((source ?? []).filter((s) => s.key !== undefined).map((s) => [s.key!, s]));
  return output.map((o, i) => ({
    source: (o.key !== undefined && byKey.size ? byKey.get(o.key) : source?.[i]) ?? null,
    translation: o,
    where: o.where,
    ...(o.key !== undefined ? { key: o.key } : {}),
  }));
}

const marked = (kind: DiffPart['kind'], pieces: readonly DiffPiece[]): DiffPart[] =>
  merged(pieces.map((p) => ({ ...p, kind })));

function row(before: Unit | undefined, after: Unit | undefined, v: Versions): ReviewRow {
  const kind: ReviewRow['kind'] = !before ? 'added' : !after ? 'removed' : 'changed';
  let source: DiffPart[] | null = null;
  const bs = before?.source ?? null;
  const as = after?.source ?? null;
  if (bs !== null && as !== null) source = wordDiff(bs.pieces, as.pieces);
  else if (as !== null) source = marked('same', as.pieces);
  else if (bs !== null) source = marked('del', bs.pieces);
  const unit = (after ?? before)!;
  const who = {
    ...(before && v.previousBy?.(before) ? { previous_by: v.previousBy(before)! } : {}),
    ...(after && v.nextBy?.(after) ? { next_by: v.nextBy(after)! } : {}),
  };
  const head = { kind, where: unit.where, ...(unit.key !== undefined ? { key: unit.key } : {}), source };
  if (before && after) {
    const d = wordDiff(before.translation.pieces, after.translation.pieces);
    return {
      ...head,
      previous: merged(d.filter((p) => p.kind !== 'ins')),
      next: merged(d.filter((p) => p.kind !== 'del')),
      ...who,
    };
  }
  return {
    ...head,
    previous: before ? marked('del', before.translation.pieces) : null,
    next: after ? marked('ins', after.translation.pieces) : null,
    ...who,
  };
}

/** Same source (or one side not known) and same translation: not shown. */
function unchangedPair(b: Unit, a: Unit): boolean {
  const sourceAsBefore = b.source === null || a.source === null || b.source.text === a.source.text;
  return b.translation.text === a.translation.text && sourceAsBefore;
}

/** A string file's versions, by key: changed keys in file order, then the keys added, then those removed. */
function compareByKey(before: Unit[], after: Unit[], v: Versions): Comparison {
  const old = new Map(before.map((u) => [u.key, u]));
  const now = new Set(after.map((u) => u.key));
  const changed: ReviewRow[] = [];
  const added: ReviewRow[] = [];
  let unchanged = 0;
  for (const a of after) {
    const b = old.get(a.key);
    if (!b) added.push(row(undefined, a, v));
    else if (unchangedPair(b, a)) unchanged++;
    else changed.push(row(b, a, v));
  }
  const removed = before.filter((b) => !now.has(b.key)).map((b) => row(b, undefined, v));
  return { rows: [...changed, ...added, ...removed], unchanged };
}

export function compareVersions(v: Versions): Comparison {
  const before = units(v.oldSource, v.oldOutput ?? []);
  const after = units(v.newSource, v.newOutput);
  const keyed = (us: Unit[]) => us.length > 0 && us.every((u) => u.key !== undefined);
  if (keyed(after) && (before.length === 0 || keyed(before))) return compareByKey(before, after, v);
  // Matched by source text when both sources are known, else by translation text.
  const bySource = v.oldSource !== null && v.newSource !== null;
  const key = (u: Unit) => (bySource ? (u.source?.text ?? null) : u.translation.text);
  const pairs = commonPairs(before, after, (x, y) => key(x) === key(y));
  const rows: ReviewRow[] = [];
  let unchanged = 0;
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [before.length, after.length] as [number, number]]) {
    // Between two matches: edited segments, paired by position; the rest added or removed.
    while (i < pi && j < pj) rows.push(row(before[i++], after[j++], v));
    while (i < pi) rows.push(row(before[i++], undefined, v));
    while (j < pj) rows.push(row(undefined, after[j++], v));
    const b = before[pi];
    const a = after[pj];
    if (b && a) {
      if (unchangedPair(b, a)) unchanged++;
      else rows.push(row(b, a, v));
    }
    i = pi + 1;
    j = pj + 1;
  }
  return { rows, unchanged };
}
