import path from 'node:path';
import { OUTPUT_PLACEHOLDERS } from './schema.js';

// Output path patterns ("out/{lang}/{path}"): rendering, placeholders and the fixed output root.
// Every rendered path is relative to the manifest folder, normalised, with '/' separators, and
// never escapes the root of its pattern.

export type OutputPlaceholder = keyof typeof OUTPUT_PLACEHOLDERS;

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** A rendered output path would leave its output root (a `..` from a file or mapping name). */
export class OutputPathError extends Error {
  constructor(
    message: string,
    readonly pattern: string,
    readonly relPath: string,
  ) {
    super(message);
    this.name = 'OutputPathError';
  }
}

/** Placeholder names used in a pattern, in order of first appearance ("out/{lang}/{path}" → lang, path). */
export function patternPlaceholders(pattern: string): string[] {
  const names: string[] = [];
  for (const m of pattern.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

export function isOutputPlaceholder(name: string): name is OutputPlaceholder {
  return Object.hasOwn(OUTPUT_PLACEHOLDERS, name);
}

/** Posix-normalised relative path; '' and '.' both become '.'. */
function normalise(p: string): string {
  const n = path.posix.normalize(p.replaceAll('\\', '/'));
  return n.endsWith('/') && n.length > 1 ? n.slice(0, -1) : n;
}

/**
 * The fixed folder prefix of a pattern before its first placeholder, normalised
 * ("out/{lang}/{path}" → "out", "out/docs-{lang}/{path}" → "out", "{lang}/{path}" → ".").
 * Outputs of the pattern are always inside it.
 */
export function outputRoot(pattern: string): string {
  const brace = pattern.indexOf('{');
  const fixed = brace === -1 ? pattern : pattern.slice(0, brace);
  const slash = fixed.replaceAll('\\', '/').lastIndexOf('/');
  return normalise(slash === -1 ? '.' : fixed.slice(0, slash) || '/');
}

/** True when `child` is `parent` or lies inside it (both normalised relative or absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.posix.relative(normalise(parent), normalise(child));
  return rel === '' || (!rel.startsWith('../') && rel !== '..' && !path.posix.isAbsolute(rel));
}

export interface OutputVars {
  /** Target language as written in the manifest (de, pt-br). */
  lang: string;
  /** Source file path relative to the mapping's source folder. */
  relPath: string;
  mapping: string;
  /** Output extension without dot (docx). */
  outputExt: string;
}

/** Values of every placeholder for one source file and target. */
export function placeholderValues(vars: OutputVars): Record<OutputPlaceholder, string> {
  const rel = path.sep === '\\' ? vars.relPath.replaceAll('\\', '/') : vars.relPath;
  const parsed = path.posix.parse(rel);
  const dir = parsed.dir === '.' ? '' : parsed.dir;
  const ext = vars.outputExt.replace(/^\./, '');
  const name = ext ? `${parsed.name}.${ext}` : parsed.name;
  return {
    lang: vars.lang,
    LANG: vars.lang.toUpperCase(),
    path: dir ? `${dir}/${name}` : name,
    dir,
    name,
    stem: parsed.name,
    ext,
    mapping: vars.mapping,
  };
}

/**
 * Render an output path pattern for one source file and target: relative to the manifest folder,
 * normalised, '/' separators. Throws OutputPathError for an unknown placeholder or when the result
 * would leave the pattern's output root (e.g. a `..` in the file's relative path).
 */
export function renderOutputPath(pattern: string, vars: OutputVars): string {
  for (const [what, value] of [
    ['file path', vars.relPath],
    ['mapping name', vars.mapping],
    ['language', vars.lang],
  ] as const) {
    if (value.split(/[\\/]/).includes('..') || path.posix.isAbsolute(value) || path.win32.isAbsolute(value)) {
      throw new OutputPathError(
        `${what} '${value}' would leave the output root '${outputRoot(pattern)}' of pattern '${pattern}'`,
        pattern,
        vars.relPath,
      );
    }
  }
  const values = placeholderValues(vars);
  const rendered = pattern.replace(PLACEHOLDER, (_m, name: string) => {
    if (!isOutputPlaceholder(name)) {
      throw new OutputPathError(
        `unknown placeholder {${name}} in output pattern '${pattern}'`,
        pattern,
        vars.relPath,
      );
    }
    return values[name];
  });
  const result = normalise(rendered);
  const root = outputRoot(pattern);
  if (!isInside(root, result) || result === root || result === '.') {
    throw new OutputPathError(
      `output path '${result}' for '${vars.relPath}' is not inside the output root '${root}' of pattern '${pattern}'`,
      pattern,
      vars.relPath,
    );
  }
  return result;
}
