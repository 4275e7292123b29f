// Whether a glob pattern (or one segment of it) holds glob characters: fast-glob's own rule
// (isDynamicPattern, with its default options), written here so that a no-op sync, which only needs
// this answer, does not load fast-glob at all.

const COMMON_GLOB_SYMBOLS = /[*?]|^!/;
const CHARACTER_CLASS = /\[[^[]*]/;
const GROUP = /(?:^|[^!*+?@])\([^(]*\|[^|]*\)/;
const GLOB_EXTENSION = /[!*+?@]\([^(]*\)/;
const BRACE_SEPARATORS = /,|\.\./;

/** True when the pattern matches by glob rules rather than as a literal path (fast-glob's rule). */
export function isDynamicPattern(pattern: string): boolean {
  if (pattern === '') return false;
  if (pattern.includes('\\')) return true;
  if (COMMON_GLOB_SYMBOLS.test(pattern) || CHARACTER_CLASS.test(pattern) || GROUP.test(pattern)) return true;
  if (GLOB_EXTENSION.test(pattern)) return true;
  return hasBraceExpansion(pattern);
}

function hasBraceExpansion(pattern: string): boolean {
  const open = pattern.indexOf('{');
  if (open === -1) return false;
  const close = pattern.indexOf('}', open + 1);
  if (close === -1) return false;
  return BRACE_SEPARATORS.test(pattern.slice(open, close));
}
