// The JSON reader's two scans (strict JSON checked as it is read, JSONC and JSON5 after their parse)
// against the parsers themselves, over generated files: every string value found under its key
// path, each one written back in its place, every other byte kept, and a text the parser refuses
// refused too. The files are made by a seeded generator, so a failure names a file that can be
// made again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import JSON5 from 'json5';
import { afterAll, describe, expect, it } from 'vitest';
import { openDocument } from '../../src/documents/index.js';
import type { StringDocument } from '../../src/documents/formats/strings/keyed.js';
import { writerIn } from './string-file.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locsync-json-scan-'));
afterAll(async () => fs.rm(dir, { recursive: true, force: true }));
const write = writerIn(dir);

/** A small seeded generator (mulberry32): the same seed makes the same files. */
function randomOf(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { next, int, pick };
}
type Random = ReturnType<typeof randomOf>;

type Syntax = 'json' | 'jsonc' | 'json5';
type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

// Characters of values and keys: words, quotes, backslashes, line breaks, a slash, non-ASCII and an
// astral character; no placeholder or ICU syntax, so that each value's text is all words.
const CHARS = ['a', 'b', 'Z', 'é', ' ', '"', "'", '\\', '\n', '/', '😀', 'ß', '\t'];

function text(r: Random, min: number): string {
  let s = '';
  for (let n = min + r.int(6); n > 0; n--) s += r.pick(CHARS);
  return s;
}

function value(r: Random, depth: number): Value {
  const k = r.int(depth > 4 ? 4 : 7);
  if (k === 0) return r.pick([true, false, null]);
  if (k === 1) return r.pick([0, -1, 12.5, 1e21, -0.25e-3]);
  if (k <= 3) return text(r, 0);
  if (k <= 5) return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
  const o: { [key: string]: Value } = {};
  for (let n = r.int(4); n > 0; n--) o[`k${n}${r.pick(['', 'x', ' é'])}`] = value(r, depth + 1);
  return o;
}

/** White space, and in JSONC/JSON5 comments between tokens. */
function gap(r: Random, syntax: Syntax): string {
  let s = r.pick(['', '', ' ', '\n  ', '\t', '\r\n']);
  if (syntax !== 'json' && r.int(5) === 0) s += r.pick(['// a note\n', '/* a * note */']);
  return s;
}

/** A string literal as the syntax may write it: escapes of several kinds, JSON5 single quotes. */
function literal(r: Random, s: string, syntax: Syntax): string {
  const single = syntax === 'json5' && r.int(3) === 0;
  const quote = single ? "'" : '"';
  let out = quote;
  for (const c of s) {
    if (c === quote || c === '\\') out += `\\${c}`;
    else if (c === '\n') out += r.pick(['\\n', '\\u000a', '\\u000A']);
    else if (c === '\t') out += r.pick(['\\t', '\\u0009']);
    else if (c === '/' && r.int(2) === 0) out += '\\/';
    else if (c === 'é' && r.int(2) === 0) out += '\\u00e9';
    else if (c === '😀' && r.int(2) === 0) out += '\\ud83d\\ude00';
    else out += c;
  }
  return out + quote;
}

function serialise(r: Random, v: Value, syntax: Syntax): string {
  const g = (): string => gap(r, syntax);
  const trailing = (): string => (syntax !== 'json' && r.int(3) === 0 ? `,${g()}` : '');
  if (typeof v === 'string') return literal(r, v, syntax);
  if (typeof v === 'number')
    return syntax === 'json5' && Number.isInteger(v) && v >= 0 && r.int(2) === 0
      ? `0x${v.toString(16)}`
      : String(v);
  if (v === null || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return `[${g()}]`;
    return `[${v.map((x) => `${g()}${serialise(r, x, syntax)}${g()}`).join(',')}${trailing()}]`;
  }
  const members = Object.entries(v).map(([k, x]) => {
    const key = syntax === 'json5' && /^k\d+x?$/.test(k) && r.int(2) === 0 ? k : literal(r, k, syntax);
    return `${g()}${key}${g()}:${g()}${serialise(r, x, syntax)}${g()}`;
  });
  return members.length === 0 ? `{${g()}}` : `{${members.join(',')}${trailing()}}`;
}

/** Every string value of a parsed file by its key path ("a.b", "list[2]"), in file order. */
function stringsOf(v: unknown, at = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof v === 'string') out.set(at, v);
  else if (Array.isArray(v)) v.forEach((x, i) => stringsOf(x, `${at}[${i}]`, out));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) stringsOf(x, at ? `${at}.${k}` : k, out);
  return out;
}

/** The parsed file with each string value that has words upper-cased: what an upper-case translation writes. */
function upperCased(v: unknown): unknown {
  if (typeof v === 'string') return /\p{L}/u.test(v) ? v.toUpperCase() : v;
  if (Array.isArray(v)) return v.map(upperCased);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, upperCased(x)]));
  return v;
}

const upper = (s: { pieces: ReadonlyArray<{ text: string; code?: boolean }> }) =>
  s.pieces.map((p) => (p.code ? p.text : p.text.toUpperCase()));

let fileNo = 0;
async function read(body: string, syntax: Syntax): Promise<StringDocument> {
  const file = path.join(dir, `f${fileNo++}.${syntax}`);
  await fs.writeFile(file, body);
  return (await openDocument(file, { format: syntax })) as StringDocument;
}

/** Reads `body`, checks its values and its upper-cased writing against the parser's reading of it. */
async function checkAgainstParser(body: string, syntax: Syntax): Promise<void> {
  const parsed: unknown = syntax === 'json' ? JSON.parse(body.replace(/^\uFEFF/, '')) : JSON5.parse(body);
  const doc = await read(body, syntax);
  expect([...doc.values()]).toEqual([...stringsOf(parsed)]);
  const written = await write(doc, 'de', upper);
  const reread: unknown =
    syntax === 'json' ? JSON.parse(written.replace(/^\uFEFF/, '')) : JSON5.parse(written);
  expect(reread).toEqual(upperCased(parsed));
  expect(await write(doc, 'de', () => undefined)).toBe(body);
}

describe('the JSON reader against the parsers', () => {
  for (const syntax of ['json', 'jsonc', 'json5'] as const)
    it(`${syntax}: 300 generated files read and written as the parser reads them`, async () => {
      const r = randomOf(syntax.length * 7919);
      for (let n = 0; n < 300; n++) {
        const root: Value = { [`top${n}`]: text(r, 1), body: value(r, 0), list: [value(r, 3), text(r, 1)] };
        const body = `${n % 7 === 0 ? '\uFEFF' : ''}${gap(r, syntax)}${serialise(r, root, syntax)}${gap(r, syntax)}`;
        try {
          await checkAgainstParser(body, syntax);
        } catch (err) {
          throw new Error(`${syntax} file ${n}: ${JSON.stringify(body)}\n${String(err)}`);
        }
      }
    });

  it('a nesting deeper than the strict scan goes is still read (3,000 levels)', async () => {
    const body = `${'{"a":['.repeat(1500)}"deep value"${']}'.repeat(1500)}`;
    const doc = await read(body, 'json');
    expect([...doc.values()]).toEqual([[`${'a[0].'.repeat(1499)}a[0]`, 'deep value']]);
    expect(await write(doc, 'de', upper)).toBe(body.replace('deep value', 'DEEP VALUE'));
  });

  it('a text JSON.parse refuses is refused, with its line', async () => {
    const broken = [
      '{"a": "b",}',
      '{"a": "b" "c": "d"}',
      "{'a': 'b'}",
      '{"a": "tab\there"}',
      '{"a": "\\x41"}',
      '{"a": "\\u12"}',
      '{"a": 01}',
      '{"a": "b"} x',
      '{"a": [1, 2}',
      '{"a": tru}',
      '{"a":\n "b"\n "c"}',
      '{"a": "unclosed}',
    ];
    for (const body of broken) {
      expect(() => JSON.parse(body), body).toThrow();
      await expect(read(body, 'json'), body).rejects.toThrow(/the \.json file is not valid JSON/);
    }
    await expect(read('{"a":\n "b"\n "c"}', 'json')).rejects.toThrow(/\(line 3\)/);
  });
});
