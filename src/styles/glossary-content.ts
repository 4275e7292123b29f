import type { ResolvedGlossary } from '../manifest/types.js';
import { diffEntries, entriesHash, isEmptyDiff, type EntriesDiff } from '../manifest/glossary-entries.js';

// The content of a glossary in one comparable form (pair → entries), as the YAML wants it and as
// the service has it; its hashes; and the differences between two contents, per language pair.

/** Pair ("en-de") → source term → target term. */
export type GlossaryContent = Map<string, Map<string, string>>;

export function desiredGlossaryContent(g: ResolvedGlossary): GlossaryContent {
  return new Map(Object.entries(g.dictionaries).map(([pair, d]) => [pair, d.entries]));
}

/** Pair → sha256 of the pair's entries. */
export function glossaryHashes(c: GlossaryContent): Record<string, string> {
  return Object.fromEntries([...c].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, e]) => [p, entriesHash(e)]));
}

export function sameHashes(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** What one language pair needs to get from one content to another. */
export interface DictionaryChange {
  pair: string;
  /** add: a new pair; replace: its entries differ; remove: the pair goes. */
  op: 'add' | 'replace' | 'remove';
  diff: EntriesDiff;
}

const EMPTY: ReadonlyMap<string, string> = new Map();

/** Changes per pair from `from` to `to` (pairs in order: sorted). */
export function diffGlossary(from: GlossaryContent, to: GlossaryContent): DictionaryChange[] {
  const pairs = [...new Set([...from.keys(), ...to.keys()])].sort();
  const out: DictionaryChange[] = [];
  for (const pair of pairs) {
    const a = from.get(pair);
    const b = to.get(pair);
    const diff = diffEntries(a ?? EMPTY, b ?? EMPTY);
    if (!a) out.push({ pair, op: 'add', diff });
    else if (!b) out.push({ pair, op: 'remove', diff });
    else if (!isEmptyDiff(diff)) out.push({ pair, op: 'replace', diff });
  }
  return out;
}
