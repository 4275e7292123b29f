import { readFile } from 'node:fs/promises';
import {
  LineCounter,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node,
  type Pair,
} from 'yaml';
import { ConfigError } from '../util/errors.js';
import { MAX_EXPANDED_VALUES, yamlData, type YamlData } from './yaml-data.js';
import { excerptAt, firstSyntaxMistake } from './yaml-syntax.js';

// A YAML file parsed with positions: every path into its data maps back to file:line:column.

export type DataPath = ReadonlyArray<PropertyKey>;

export interface Position {
  line: number;
  column: number;
}

/** "mappings[0].targets[1].lang" */
export function formatPath(path: DataPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

export class YamlSource {
  readonly lineCounter = new LineCounter();
  readonly doc: Document;

  constructor(
    /** Absolute path of the file. */
    readonly file: string,
    readonly text: string,
  ) {
    this.doc = parseDocument(text, {
      lineCounter: this.lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      // `<<: *defaults` merge keys, common for targets sharing settings.
      merge: true,
    });
  }

  static async read(file: string): Promise<YamlSource> {
    return new YamlSource(file, await readFile(file, 'utf8'));
  }

  /**
   * The first syntax mistake (bad indentation, a duplicate key, an unclosed quote or bracket), at
   * the place to fix with the line shown; what the parser reports after it follows from it, so it
   * is not listed. Empty when the file parses, unless its aliases expand to more data than any
   * manifest has (an alias bomb).
   */
  syntaxErrors(): ConfigError[] {
    const mistake = firstSyntaxMistake(this.text, this.lineCounter, this.doc.errors);
    if (!mistake) {
      const d = this.converted();
      if (!('tooLarge' in d)) return [];
      const at = this.positionOfOffset(d.tooLarge.at.range?.[0] ?? 0);
      const message = `YAML aliases expand to more than ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} values (an alias bomb?); write the values out or nest fewer aliases`;
      return [new ConfigError(message, { file: this.file, line: at.line, column: at.column })];
    }
    const pos = this.lineCounter.linePos(mistake.offset);
    const excerpt = excerptAt(this.text, this.lineCounter, mistake.offset);
    return [
      new ConfigError(`YAML syntax error: ${mistake.message}\n${excerpt}`, {
        file: this.file,
        line: pos.line,
        column: pos.col,
      }),
    ];
  }

  private dataCache: YamlData | undefined;
  private converted(): YamlData {
    return (this.dataCache ??= yamlData(this.doc));
  }

  /** The parsed data (aliases and merge keys resolved); undefined for an alias bomb (see syntaxErrors). */
  data(): unknown {
    const d = this.converted();
    return 'data' in d ? d.data : undefined;
  }

  private positionOfOffset(offset: number): Position {
    const p = this.lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  }

  private resolve(node: unknown): unknown {
    return isAlias(node) ? node.resolve(this.doc) : node;
  }

  /**
   * The deepest node along `path` (the node itself when the whole path exists, otherwise the
   * nearest existing ancestor, so a missing key points at the mapping that lacks it).
   */
  nodeAt(path: DataPath): { node: Node | undefined; found: boolean; keyNode: Node | undefined } {
    let cur: unknown = this.doc.contents;
    let keyNode: Node | undefined;
    for (const seg of path) {
      cur = this.resolve(cur);
      if (isMap(cur)) {
        const pair = (cur.items as Pair[]).find((p) => keyText(p.key) === String(seg));
        if (!pair) return { node: cur, found: false, keyNode };
        keyNode = pair.key as Node;
        if (pair.value == null) return { node: keyNode, found: true, keyNode };
        cur = pair.value;
      } else if (isSeq(cur) && typeof seg === 'number' && cur.items[seg] != null) {
        keyNode = undefined;
        cur = cur.items[seg];
      } else {
        return { node: cur as Node, found: false, keyNode };
      }
    }
    return { node: cur as Node, found: true, keyNode };
  }

  /** Position of the value at `path` (or of the nearest existing ancestor). */
  position(path: DataPath): Position {
    const { node, found, keyNode } = this.nodeAt(path);
    // A list or mapping value starts on the line after its key in block style: point at the key.
    const target = found && keyNode && (isMap(node) || isSeq(node)) ? keyNode : node;
    const offset = target?.range?.[0];
    return offset === undefined ? { line: 1, column: 1 } : this.positionOfOffset(offset);
  }

  /** Position of the key `key` in the mapping at `path` (for unknown keys). */
  keyPosition(path: DataPath, key: string): Position {
    const { node, found, keyNode } = this.nodeAt([...path, key]);
    const target = found ? (keyNode ?? node) : node;
    const offset = target?.range?.[0];
    return offset === undefined ? this.position(path) : this.positionOfOffset(offset);
  }

  /** A ConfigError located at `path` of this file. */
  errorAt(path: DataPath, message: string, opts: { key?: boolean } = {}): ConfigError {
    const pos = opts.key ? this.keyPositionOf(path) : this.position(path);
    return new ConfigError(message, { file: this.file, line: pos.line, column: pos.column });
  }

  private keyPositionOf(path: DataPath): Position {
    if (path.length === 0) return this.position(path);
    return this.keyPosition(path.slice(0, -1), String(path[path.length - 1]));
  }
}
