// JSON as Xcode writes it (String Catalogs, .xcstrings): keys in file order, each string and number
// literal kept as written, and printed back in Xcode's layout (two-space indent, " : " between a key
// and its value, an empty object as "{", a blank line and "}"). A catalog Xcode wrote prints back
// byte for byte; what locsync adds is printed the same way, so Xcode shows no diff on its next save.
import { DocumentFormatError } from '../../errors.js';

export type JsonNode =
  | { kind: 'object'; members: JsonMember[] }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; raw: string; value: string }
  | { kind: 'literal'; raw: string };

export interface JsonMember {
  /** The key as written (quoted, escaped). */
  raw: string;
  key: string;
  value: JsonNode;
}

/**
 * The tree of a JSON text (checked by JSON.parse first, for its error message and line), and the
 * bytes around the root value (a byte order mark is decoded away before; a final newline kept).
 */
export function parseXcodeJson(
  text: string,
  what: string,
): { root: JsonNode; before: string; after: string } {
  try {
    JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line = m ? text.slice(0, Number(m[1])).split('\n').length : undefined;
    throw new DocumentFormatError(
      `${what} is not valid JSON${line ? ` (line ${line})` : ''}: ${(e as Error).message}`,
    );
  }
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const str = (): { raw: string; value: string } => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    const raw = text.slice(start, i);
    return { raw, value: JSON.parse(raw) as string };
  };
  const value = (depth: number): JsonNode => {
    if (depth > 64) throw new DocumentFormatError(`${what} nests its JSON more than 64 levels deep`);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const members: JsonMember[] = [];
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const { raw, value: key } = str();
          ws();
          i++; // ':'
          members.push({ raw, key, value: value(depth + 1) });
          ws();
          if (text[i++] === '}') break;
        }
      return { kind: 'object', members };
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') i++;
      else
        for (;;) {
          items.push(value(depth + 1));
          ws();
          if (text[i++] === ']') break;
        }
      return { kind: 'array', items };
    }
    if (c === '"') return { kind: 'string', ...str() };
    const start = i;
    while (i < text.length && !',}] \t\r\n'.includes(text[i] as string)) i++;
    return { kind: 'literal', raw: text.slice(start, i) };
  };
  ws();
  const before = text.slice(0, i);
  const root = value(0);
  return { root, before, after: text.slice(i) };
}

/** A tree in Xcode's layout. */
export function printXcodeJson(node: JsonNode, indent = ''): string {
  if (node.kind === 'string' || node.kind === 'literal') return node.raw;
  const inner = `${indent}  `;
  if (node.kind === 'array') {
    if (node.items.length === 0) return `[\n\n${indent}]`;
    return `[\n${node.items.map((v) => inner + printXcodeJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (node.members.length === 0) return `{\n\n${indent}}`;
  const members = node.members.map((m) => `${inner}${m.raw} : ${printXcodeJson(m.value, inner)}`);
  return `{\n${members.join(',\n')}\n${indent}}`;
}

/** A member's value by key (the first of that key). */
export function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  return node?.kind === 'object' ? node.members.find((m) => m.key === key)?.value : undefined;
}

/** A string as Xcode writes it: JSON's escapes, and `\/` for a slash when the file writes it so. */
export function xcodeString(value: string, escapesSlash: boolean): JsonNode {
  const raw = JSON.stringify(value);
  return { kind: 'string', raw: escapesSlash ? raw.replaceAll('/', '\\/') : raw, value };
}

/** An object of the members given, keys sorted as Xcode sorts them. */
export function sortedObject(members: Array<[string, JsonNode]>): JsonNode {
  return {
    kind: 'object',
    members: [...members]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ raw: JSON.stringify(key), key, value })),
  };
}

/** `node` with `key` set to `value`: in place of the old member, else at its sorted place. */
export function withMember(node: JsonNode, key: string, value: JsonNode): JsonNode {
  if (node.kind !== 'object') return node;
  const members = [...node.members];
  const at = members.findIndex((m) => m.key === key);
  if (at >= 0) members[at] = { ...(members[at] as JsonMember), value };
  else {
    const next = members.findIndex((m) => m.key > key);
    members.splice(next < 0 ? members.length : next, 0, { raw: JSON.stringify(key), key, value });
  }
  return { kind: 'object', members };
}
