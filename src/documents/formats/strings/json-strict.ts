// A strict JSON file's string values, found and checked in one pass over its text (RFC 8259, as
// JSON.parse reads it): a 50 MB string file is read without JSON.parse's copy of it as objects,
// which took more memory than the file's values themselves (a plan of it peaked at 1.17 GB).
// Whatever this scan does not take is handed back to JSON.parse (./json.ts), for its message. The
// walk of objects and arrays is ./json-walk.ts; these are strict JSON's tokens.
import { walkJson, type JsonTokens, type ScannedString } from './json-walk.js';

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
  const tokens: JsonTokens = {
    gap: ws,
    peek: () => text[i],
    skip: () => {
      i++;
    },
    key: () => {
      const k = str();
      ws();
      if (text[i++] !== ':') fail();
      return k;
    },
    leaf: () => {
      if (text[i] === '"') {
        const start = i;
        const value = str();
        return { start, end: i, value };
      }
      for (const literal of ['true', 'false', 'null'])
        if (text.startsWith(literal, i)) {
          i += literal.length;
          return undefined;
        }
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) fail();
      i = NUMBER.lastIndex;
      return undefined;
    },
    closes: (close) => {
      ws();
      const next = text[i++];
      if (next === close) return true;
      if (next !== ',') fail();
      return false;
    },
  };
  yield* walkJson(tokens);
  ws();
  if (i !== n) fail();
}
