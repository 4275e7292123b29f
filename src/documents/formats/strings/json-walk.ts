// The walk of a JSON text's objects and arrays, shared by the strict scan (./json-strict.ts: RFC 8259
// checked as it goes) and the relaxed one of JSONC and JSON5 (./json.ts: comments, trailing commas,
// unquoted keys, single quotes; the text parsed first). Each brings its tokens; the walk keeps the
// key path of every string value. It keeps its open objects and arrays in a list, not on the call
// stack, so a deep file is walked whatever its depth.

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

/** The tokens of one syntax, read at a cursor they share with the walk. */
export interface JsonTokens {
  /** Steps over white space (and whatever else the syntax allows between tokens). */
  gap(): void;
  /** The character at the cursor. */
  peek(): string | undefined;
  /** Steps over the character at the cursor. */
  skip(): void;
  /** An object's key at the cursor, with the colon after it: the key, read. */
  key(): string;
  /** A value that is neither object nor array at the cursor: a string's place and value, else nothing. */
  leaf(): Omit<ScannedString, 'path' | 'top'> | undefined;
  /** After a member or an item: true when `close` ends its object or array there, false at a comma. */
  closes(close: '}' | ']'): boolean;
}

interface Open {
  close: '}' | ']';
  path: string;
  top: string;
  items: number;
}

/** Each string value of the text in order, found with `tokens`. */
export function* walkJson(tokens: JsonTokens): Generator<ScannedString> {
  const open: Open[] = [];
  // The next value's key path and top-level key, from the member or item it is.
  let path = '';
  let top = '';
  const member = (o: Open): void => {
    if (o.close === ']') {
      path = `${o.path}[${o.items++}]`;
      top = o.top;
      return;
    }
    tokens.gap();
    const k = tokens.key();
    path = o.path ? `${o.path}.${k}` : k;
    top = o.top || k;
  };
  for (;;) {
    tokens.gap();
    const c = tokens.peek();
    if (c === '{' || c === '[') {
      tokens.skip();
      tokens.gap();
      const o: Open = { close: c === '{' ? '}' : ']', path, top, items: 0 };
      if (tokens.peek() !== o.close) {
        open.push(o);
        member(o);
        continue;
      }
      tokens.skip(); // empty
    } else {
      const s = tokens.leaf();
      if (s) yield { path, top, ...s };
    }
    // The value ended: close what it ended, or go on to the next member or item.
    for (;;) {
      const o = open.at(-1);
      if (o === undefined) return;
      if (!tokens.closes(o.close)) {
        member(o);
        break;
      }
      open.pop();
    }
  }
}
