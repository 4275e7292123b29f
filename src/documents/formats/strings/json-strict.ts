// A strict JSON file's string values, found and checked in one pass over its text (RFC 8259, as
// JSON.parse reads it): a 50 MB string file is read without JSON.parse's copy of it as objects,
// which took more memory than the file's values themselves (a plan of it peaked at 1.17 GB).
// Whatever this scan does not take is handed back to JSON.parse (./json.ts), for its message.

/** Where a string value is in the text, with its key path, its top-level key and its value. */
export interface ScannedString {
  path: string;
  start: number;
  end: number;
  /** Top-level key (ARB skips "@..." ones). */
  top: string;
  /** The value, escapes read. */
  value: string;
}

/** The text is not JSON this scan takes. */
export class NotStrictJson extends Error {}

const fail = (): never => {
  throw new NotStrictJson();
};

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const SIMPLE_ESCAPES = '"\\/bfnrt';

/** Each string value of `text` in order; throws NotStrictJson where it is not JSON. */
export function* scanStrictJson(text: string): Generator<ScannedString> {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const ws = (): void => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    }
  };
  /** A string literal at i: its value (a slice of the text when it has no escape). */
  const str = (): string => {
    if (text.charCodeAt(i) !== 0x22) fail();
    const start = i++;
    let escaped = false;
    for (;;) {
      if (i >= n) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail();
      if (c !== 0x5c) {
        i++;
        continue;
      }
      escaped = true;
      const e = text[i + 1];
      if (e === 'u') {
        HEX4.lastIndex = i + 2;
        if (!HEX4.test(text)) fail();
        i += 6;
      } else if (e !== undefined && SIMPLE_ESCAPES.includes(e)) i += 2;
      else fail();
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  function* value(path: string, top: string, depth: number): Generator<ScannedString> {
    if (depth > 1000) fail(); // JSON.parse's own limit decides such a file
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') fail();
        yield* value(path ? `${path}.${k}` : k, top || k, depth + 1);
        ws();
        const next = text[i++];
        if (next === '}') return;
        if (next !== ',') fail();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let item = 0; ; item++) {
        yield* value(`${path}[${item}]`, top, depth + 1);
        ws();
        const next = text[i++];
        if (next === ']') return;
        if (next !== ',') fail();
      }
    }
    if (c === '"') {
      const start = i;
      const v = str();
      yield { path, start, end: i, top, value: v };
      return;
    }
    for (const literal of ['true', 'false', 'null'])
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) fail();
    i = NUMBER.lastIndex;
  }
  yield* value('', '', 0);
  ws();
  if (i !== n) fail();
}
