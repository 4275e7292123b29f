// Whether a saved plan still says what the plan made now says, field by field: the file is what a
// reviewer read (prices, sizes, reasons), so a field edited after it was saved — a lower price, a
// smaller size — must stop the run as surely as an edited source. A walk over both values with a
// stack of its own (a file's nesting never reaches the call stack) that stops at `limit` findings.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function show(v: Json | undefined): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * The fields where `saved` and `fresh` differ, as "path: X in the file, Y now", at most `limit`
 * of them (`more`: whether there are others). `fresh` is made plain JSON first (undefined fields
 * dropped), as it would have been saved.
 */
export function fieldDifferences(
  name: string,
  saved: unknown,
  fresh: unknown,
  limit: number,
): { lines: string[]; more: boolean } {
  const lines: string[] = [];
  const stack: Array<[string, Json | undefined, Json | undefined]> = [
    [name, saved as Json, JSON.parse(JSON.stringify(fresh ?? null)) as Json],
  ];
  while (stack.length) {
    const [at, a, b] = stack.pop()!;
    const aObject = typeof a === 'object' && a !== null;
    const bObject = typeof b === 'object' && b !== null;
    if (aObject && bObject && Array.isArray(a) === Array.isArray(b)) {
      const keys = Array.isArray(a)
        ? Array.from({ length: Math.max(a.length, (b as Json[]).length) }, (_, i) => i)
        : [...new Set([...Object.keys(a), ...Object.keys(b)])];
      // Pushed in reverse, so that findings come out in the file's order.
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        stack.push([
          pathOf(at, k),
          (a as Record<string | number, Json>)[k],
          (b as Record<string | number, Json>)[k],
        ]);
      }
      continue;
    }
    if (a === b) continue;
    if (lines.length === limit) return { lines, more: true };
    lines.push(`${at}: ${show(a)} in the file, ${show(b)} now`);
  }
  return { lines, more: false };
}
