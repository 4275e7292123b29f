import {
  isMap,
  isScalar,
  isSeq,
  stringify,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';

// Edits of a YAML file's text at the places the parsed nodes came from, so that writing values back
// (drift: adopt, pull into an existing file) changes those values and nothing else: comments,
// quoting, flow style and blank lines of everything else stay byte for byte.

interface Edit {
  start: number;
  end: number;
  text: string;
  order: number;
}

/** Is the mapping written in flow style (`{ a: 1 }`)? */
function isFlow(node: YAMLMap | YAMLSeq): boolean {
  return node.flow === true;
}

export class YamlTextEditor {
  private readonly edits: Edit[] = [];

  constructor(readonly text: string) {}

  private lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** The offset after the line break that ends the line holding `offset - 1` (a node's end). */
  private afterLine(offset: number): number {
    if (offset > 0 && this.text[offset - 1] === '\n') return offset;
    const nl = this.text.indexOf('\n', offset);
    return nl === -1 ? this.text.length : nl + 1;
  }

  private column(offset: number): number {
    return offset - this.lineStart(offset);
  }

  private add(start: number, end: number, text: string): void {
    this.edits.push({ start, end, text, order: this.edits.length });
  }

  /** A scalar in the style it was written in (plain, 'single', "double"); plain only where safe. */
  private renderScalar(value: string, like?: Scalar): string {
    if (like?.type === 'QUOTE_DOUBLE') return JSON.stringify(value);
    if (like?.type === 'QUOTE_SINGLE') return `'${value.replaceAll("'", "''")}'`;
    return stringify(value).trimEnd();
  }

  /** A value placed after `key:` at `indent` (scalars on the line, collections as indented blocks). */
  private renderValue(value: unknown, indent: number, flow: boolean): string {
    if (typeof value === 'string') return ` ${this.renderScalar(value)}`;
    if (flow || value === null || typeof value !== 'object')
      return ` ${stringify(value, { collectionStyle: 'flow' }).trimEnd()}`;
    const pad = ' '.repeat(indent + 2);
    const block = stringify(value).trimEnd().split('\n');
    return `\n${block.map((l) => pad + l).join('\n')}`;
  }

  /** Set the scalar `node` to `value` (nothing when equal). */
  setScalar(node: Scalar, value: string): void {
    if (node.value === value || !node.range) return;
    this.add(node.range[0], node.range[1], this.renderScalar(value, node));
  }

  /** Remove one pair of a mapping (its line(s) in block style, with the comma in flow style). */
  removePair(map: YAMLMap, pair: Pair): void {
    const keyNode = pair.key as Node;
    const valueNode = pair.value as Node | null;
    const start = keyNode.range![0];
    const end = valueNode?.range?.[1] ?? keyNode.range![1];
    if (isFlow(map)) {
      const after = this.text.slice(end).match(/^\s*,\s*/);
      if (after) return this.add(start, end + after[0].length, '');
      const before = this.text.slice(0, start).match(/,\s*$/);
      return this.add(before ? start - before[0].length : start, end, '');
    }
    this.add(this.lineStart(start), this.afterLine(end), '');
  }

  /** Remove every pair of a block mapping, leaving `{}` (an empty mapping) in its place. */
  emptyMap(map: YAMLMap): void {
    if (isFlow(map)) {
      this.add(map.range![0], map.range![1], '{}');
      return;
    }
    const first = map.items[0]!.key as Node;
    const lastPair = map.items[map.items.length - 1]!;
    const end = (lastPair.value as Node | null)?.range?.[1] ?? (lastPair.key as Node).range![1];
    this.add(first.range![0], this.afterLine(end), '{}\n');
  }

  /** Add `key: value` at the end of a mapping, written like its other pairs. */
  addPair(map: YAMLMap, key: string, value: unknown): void {
    const keyText = this.renderScalar(key);
    if (isFlow(map) || map.items.length === 0) {
      const close = map.range![1] - 1;
      const closeAt = this.text.lastIndexOf('}', close);
      const sep = map.items.length ? ', ' : '';
      this.add(closeAt, closeAt, `${sep}${keyText}:${this.renderValue(value, 0, true)}`);
      return;
    }
    const first = map.items[0]!.key as Node;
    const last = map.items[map.items.length - 1]!;
    const end = (last.value as Node | null)?.range?.[1] ?? (last.key as Node).range![1];
    const indent = this.column(first.range![0]);
    const at = this.afterLine(end);
    const nl = at === this.text.length && !this.text.endsWith('\n') ? '\n' : '';
    this.add(at, at, `${nl}${' '.repeat(indent)}${keyText}:${this.renderValue(value, indent, false)}\n`);
  }

  /** Set `key` of a mapping to a scalar: in place when it is a scalar, else added at the end. */
  setValue(map: YAMLMap, key: string, value: string): void {
    const node = map.get(key, true);
    if (isScalar(node)) this.setScalar(node, value);
    else if (node === undefined) this.addPair(map, key, value);
    else {
      const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === key)!;
      const v = pair.value as Node;
      this.add(v.range![0], v.range![1], this.renderScalar(value));
    }
  }

  /** Remove item `index` of a sequence. */
  removeItem(seq: YAMLSeq, index: number): void {
    const item = seq.items[index] as Node;
    if (isFlow(seq)) {
      const start = item.range![0];
      const end = item.range![1];
      const after = this.text.slice(end).match(/^\s*,\s*/);
      if (after) return this.add(start, end + after[0].length, '');
      const before = this.text.slice(0, start).match(/,\s*$/);
      return this.add(before ? start - before[0].length : start, end, '');
    }
    // The item's "- " starts its line (its node starts after the dash).
    this.add(this.lineStart(item.range![0]), this.afterLine(item.range![1]), '');
  }

  /** Add an item at the end of a block sequence, written like its other items. */
  addItem(seq: YAMLSeq, value: unknown): void {
    if (isFlow(seq) || seq.items.length === 0) {
      const closeAt = this.text.lastIndexOf(']', seq.range![1] - 1);
      const sep = seq.items.length ? ', ' : '';
      this.add(closeAt, closeAt, `${sep}${stringify(value, { collectionStyle: 'flow' }).trimEnd()}`);
      return;
    }
    const last = seq.items[seq.items.length - 1] as Node;
    const dash = this.text.lastIndexOf('-', (seq.items[0] as Node).range![0]);
    const indent = this.column(dash);
    const block = stringify([value]).trimEnd().split('\n');
    const at = this.afterLine(last.range![1]);
    this.add(at, at, `${block.map((l) => ' '.repeat(indent) + l).join('\n')}\n`);
  }

  /** The text with every edit made. */
  result(): string {
    const sorted = [...this.edits].sort((a, b) => b.start - a.start || b.order - a.order);
    let out = this.text;
    for (const e of sorted) out = out.slice(0, e.start) + e.text + out.slice(e.end);
    return out;
  }
}

export function mapIn(node: unknown): YAMLMap | undefined {
  return isMap(node) ? (node as YAMLMap) : undefined;
}

export function seqIn(node: unknown): YAMLSeq | undefined {
  return isSeq(node) ? (node as YAMLSeq) : undefined;
}
