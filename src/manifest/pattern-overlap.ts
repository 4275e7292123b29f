// Whether two output patterns (with {lang}, {LANG} and {mapping} already filled in) can render the
// same path for some source files, and an example of such a path. Each pattern is a small automaton
// over characters: literal text, and placeholders as the strings they can stand for ({path}: any
// non-empty path; {name}, {stem}: one non-empty file name; {ext}: an extension; `{dir}/`: nothing or
// folders ending in '/'). Two patterns overlap when the product of their automata reaches both ends.

/** What a transition consumes: one given character, any character but '/', or any character. */
type CharClass = { lit: string } | 'segment' | 'any';

interface Automaton {
  /** Transitions per state. */
  edges: Array<Array<{ cls: CharClass; to: number }>>;
  /** Empty transitions per state. */
  empty: number[][];
  end: number;
}

const PLACEHOLDER_OR_CHAR = /\{dir\}\/|\{(?:path|dir|name|stem|ext)\}|[^]/gu;

function compilePattern(pattern: string): Automaton {
  const edges: Automaton['edges'] = [[]];
  const empty: number[][] = [[]];
  const state = () => {
    edges.push([]);
    empty.push([]);
    return edges.length - 1;
  };
  /** A run of one or more characters of `cls` (zero or more when `optional`). */
  const run = (from: number, cls: CharClass, optional: boolean): number => {
    const loop = state();
    edges[from]!.push({ cls, to: loop });
    edges[loop]!.push({ cls, to: loop });
    if (optional) empty[from]!.push(loop);
    return loop;
  };
  let at = 0;
  for (const m of pattern.matchAll(PLACEHOLDER_OR_CHAR)) {
    const token = m[0];
    if (token === '{dir}/') {
      // Nothing at the top level, else folders and their '/'.
      const inside = run(at, 'any', false);
      const after = state();
      edges[inside]!.push({ cls: { lit: '/' }, to: after });
      empty[at]!.push(after);
      at = after;
    } else if (token === '{path}') at = run(at, 'any', false);
    else if (token === '{dir}') at = run(at, 'any', true);
    else if (token === '{name}' || token === '{stem}') at = run(at, 'segment', false);
    else if (token === '{ext}') at = run(at, 'segment', true);
    else {
      const next = state();
      edges[at]!.push({ cls: { lit: token }, to: next });
      at = next;
    }
  }
  return { edges, empty, end: at };
}

/** A character both classes accept, or undefined. */
function common(a: CharClass, b: CharClass): string | undefined {
  if (typeof a === 'object' && typeof b === 'object') return a.lit === b.lit ? a.lit : undefined;
  if (typeof a === 'object') return b === 'segment' && a.lit === '/' ? undefined : a.lit;
  if (typeof b === 'object') return a === 'segment' && b.lit === '/' ? undefined : b.lit;
  return 'x';
}

/**
 * A path both patterns can render (an example of the overlap, with 'x' for any text), or undefined
 * when no file can get the same output path from both.
 */
export function patternOverlap(a: string, b: string): string | undefined {
  const A = compilePattern(a);
  const B = compilePattern(b);
  const width = B.edges.length;
  const key = (i: number, j: number) => i * width + j;
  const from = new Map<number, { prev: number; ch: string }>();
  const seen = new Set<number>([0]);
  const queue: number[] = [0];
  const visit = (k: number, prev: number, ch: string) => {
    if (seen.has(k)) return;
    seen.add(k);
    from.set(k, { prev, ch });
    queue.push(k);
  };
  for (let q = 0; q < queue.length; q++) {
    const k = queue[q]!;
    const i = Math.floor(k / width);
    const j = k % width;
    if (i === A.end && j === B.end) {
      let example = '';
      for (let at = k; at !== 0;) {
        const step = from.get(at)!;
        example = step.ch + example;
        at = step.prev;
      }
      return example;
    }
    for (const to of A.empty[i]!) visit(key(to, j), k, '');
    for (const to of B.empty[j]!) visit(key(i, to), k, '');
    for (const ea of A.edges[i]!) {
      for (const eb of B.edges[j]!) {
        const ch = common(ea.cls, eb.cls);
        if (ch !== undefined) visit(key(ea.to, eb.to), k, ch);
      }
    }
  }
  return undefined;
}
