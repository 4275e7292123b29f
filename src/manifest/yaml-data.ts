import { isAlias, isMap, isNode, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';

// The plain data of a parsed YAML document, in one pass over it. Document.toJS would do, but it looks
// up each alias's anchor by scanning the document (quadratic for a generated manifest with
// `<<: *defaults` in each of 100,000 mappings) and refuses more than 1000 uses of one anchor. What
// matters is how big the data becomes: a "billion laughs" file (each line repeating the previous
// one nine times) is refused by counting the values it expands to, once per anchored node.

/** Values one YAML file may expand to (a 10 MB manifest has about 2 million). */
export const MAX_EXPANDED_VALUES = 20_000_000;

const MERGE_KEY = '<<';

export type YamlData = { data: unknown } | { tooLarge: { at: Node; values: number } };

class ExpansionLimit extends Error {
  constructor(
    readonly at: Node,
    readonly values: number,
  ) {
    super('expansion limit');
  }
}

/** The data of `doc` (aliases and `<<` merge keys resolved), or where it expands past `limit` values. */
export function yamlData(doc: Document, limit = MAX_EXPANDED_VALUES): YamlData {
  // The walk is in document order, so the anchor an alias means is the last one seen with its name.
  const anchors = new Map<string, Node>();
  const converted = new Map<Node, { value: unknown; values: number }>();
  let total = 0;

  const count = (n: number, at: Node) => {
    total += n;
    if (total > limit) throw new ExpansionLimit(at, total);
  };

  const convert = (node: unknown): unknown => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) return undefined; // reported as a syntax error by the parser
      const done = converted.get(target);
      if (!done) return undefined;
      count(done.values, node);
      return done.value;
    }
    if (!isNode(node)) return node ?? null;
    if (node.anchor) anchors.set(node.anchor, node);
    const before = total;
    count(1, node);
    let value: unknown;
    if (isScalar(node)) value = node.value;
    else if (isSeq(node)) {
      const list: unknown[] = [];
      // Set before the items: an alias inside its own anchor refers to the value being built.
      if (node.anchor) converted.set(node, { value: list, values: 1 });
      for (const item of node.items) list.push(convert(item));
      value = list;
    } else if (isMap(node)) {
      const obj: Record<string, unknown> = {};
      if (node.anchor) converted.set(node, { value: obj, values: 1 });
      const merged: Array<Record<string, unknown>> = [];
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        // The parser resolves an unquoted `<<` key to a Symbol('<<') scalar (a quoted one is text).
        const k = isScalar(pair.key) ? pair.key.value : undefined;
        if (typeof k === 'symbol' && k.description === MERGE_KEY) {
          const source = convert(pair.value);
          for (const m of Array.isArray(source) ? source : [source])
            if (m !== null && typeof m === 'object' && !Array.isArray(m))
              merged.push(m as Record<string, unknown>);
          continue;
        }
        setKey(obj, String(convert(pair.key)), convert(pair.value));
      }
      // Keys written in the mapping win over merged ones; earlier merged mappings win over later ones.
      for (const m of merged)
        for (const [k, v] of Object.entries(m)) if (!Object.hasOwn(obj, k)) setKey(obj, k, v);
      value = obj;
    } else value = null;
    if (node.anchor) converted.set(node, { value, values: total - before });
    return value;
  };

  try {
    return { data: convert(doc.contents) };
  } catch (err) {
    if (err instanceof ExpansionLimit) return { tooLarge: { at: err.at, values: err.values } };
    throw err;
  }
}

/** obj[key] = value, also for '__proto__' (an own property, never the prototype). */
function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
