import path from 'node:path';
import { languageInStyle } from '../documents/language-tag.js';
import { OUTPUT_PLACEHOLDERS, type Mapping } from './sections/mapping.js';

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

/** Placeholders naming the target language, in the spellings of docs/strings/README.md. */
export const LANGUAGE_PLACEHOLDERS = ['lang', 'LANG', 'lang_bcp47', 'lang_posix', 'lang_android'] as const;

/** A pattern with its language placeholders filled in for one target language. */
export function withLanguage(pattern: string, lang: string): string {
  return pattern
    .replaceAll('{lang}', lang)
    .replaceAll('{LANG}', lang.toUpperCase())
    .replaceAll('{lang_bcp47}', languageInStyle(lang, 'bcp47'))
    .replaceAll('{lang_posix}', languageInStyle(lang, 'posix'))
    .replaceAll('{lang_android}', languageInStyle(lang, 'android'));
}

/**
 * The one file a mapping takes when its include is a single path without glob characters
 * (`include: [en.json]`): a string file whose translations are named by language only
 * (`locales/{lang_bcp47}.json` beside `locales/en.json`, docs/strings/README.md).
 */
export function singleSourceFile(m: Mapping): string | undefined {
  const only = m.include.length === 1 ? m.include[0] : undefined;
  return only !== undefined && !/[*?[\]{}!]/.test(only) ? only : undefined;
}

/**
 * Whether a mapping takes files of its source folder's top only: every include pattern names no
 * folder and no `**` (`include: ['*.pot']`), so no two of its files share a name.
 */
export function takesTopFolderOnly(m: Mapping): boolean {
  return m.include.every((p) => !p.includes('/') && !p.includes('**'));
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

/** What path.posix.normalize would change: '\\', '//', a '.' or '..' segment, a trailing '/'. */
const NOT_NORMAL = /\\|\/\/|(?:^|\/)\.\.?(?:\/|$)|\/$/;

/** Posix-normalised relative path; '' and '.' both become '.'. */
function normalise(p: string): string {
  if (p !== '' && !NOT_NORMAL.test(p)) return p; // already normal (the common case: no allocation)
  const n = path.posix.normalize(p.replaceAll('\\', '/'));
  return n.endsWith('/') && n.length > 1 ? n.slice(0, -1) : n;
}

/**
 * The rendered output path normalised. A value's backslash is a separator only where the platform
 * says so: on posix `back\\slash.txt` is one file name (the pattern's own backslashes were made '/'
 * when it was compiled), so it must not become a folder.
 */
function normaliseRendered(p: string): string {
  if (path.sep === '\\') return normalise(p);
  if (p !== '' && !NOT_NORMAL_POSIX.test(p)) return p;
  const n = path.posix.normalize(p);
  return n.endsWith('/') && n.length > 1 ? n.slice(0, -1) : n;
}
const NOT_NORMAL_POSIX = /\/\/|(?:^|\/)\.\.?(?:\/|$)|\/$/;

/** A '..' segment (either separator). */
const PARENT_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;
/** A '..' segment of a posix path (a backslash is part of a name there). */
const PARENT_SEGMENT_POSIX = /(?:^|\/)\.\.(?:\/|$)/;
/** Absolute for posix or Windows: '/x', '\\x', 'C:\\x', 'C:/x'. */
const ABSOLUTE = /^(?:[\\/]|[a-zA-Z]:[\\/])/;

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

/** A normalised relative path that starts by going up. */
function leavesUp(rest: string): boolean {
  return rest === '..' || rest.startsWith('../');
}

/**
 * isInside for paths already normalised (no '.' or '..' segment but leading '..'s, no '//', no trailing
 * '/'), by prefix: the render hot path (100,000s of calls) without path.relative's resolving.
 */
function isInsideNormalised(root: string, p: string): boolean {
  if (root === '.') return !leavesUp(p) && !p.startsWith('/');
  if (root === '/') return p.startsWith('/');
  if (p === root) return true;
  // '..' segments only lead a normalised path: "../.." is not inside "..", "../x" is.
  return (
    p.startsWith(root) && p.charCodeAt(root.length) === 47 /* '/' */ && !leavesUp(p.slice(root.length + 1))
  );
}

/** A pattern split once: literal text and placeholder names alternate (even: literal, odd: name). */
interface CompiledPattern {
  parts: string[];
  /** The first placeholder that is not an output placeholder. */
  unknown: string | undefined;
  root: string;
}

/** Compiled patterns (a manifest has a handful; rendering runs once per file and target). */
const compiled = new Map<string, CompiledPattern>();
function compile(pattern: string): CompiledPattern {
  let c = compiled.get(pattern);
  if (c === undefined) {
    const parts: string[] = [];
    let unknown: string | undefined;
    let last = 0;
    for (const m of pattern.matchAll(PLACEHOLDER)) {
      const name = m[1] ?? '';
      if (unknown === undefined && !isOutputPlaceholder(name)) unknown = name;
      parts.push(pattern.slice(last, m.index), name);
      last = m.index + m[0].length;
    }
    parts.push(pattern.slice(last));
    // The pattern's own separators may be written either way; the values' are the platform's.
    for (let i = 0; i < parts.length; i += 2) parts[i] = (parts[i] as string).replaceAll('\\', '/');
    c = { parts, unknown, root: outputRoot(pattern) };
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, c);
  }
  return c;
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

/**
 * The value of one placeholder for one source file and target. Only the placeholders a pattern uses
 * are computed (rendering runs once per file and target: no parsed path or object per call).
 */
function placeholderValue(name: OutputPlaceholder, vars: OutputVars): string {
  switch (name) {
    case 'lang':
      return vars.lang;
    case 'LANG':
      return vars.lang.toUpperCase();
    case 'lang_bcp47':
      return languageInStyle(vars.lang, 'bcp47');
    case 'lang_posix':
      return languageInStyle(vars.lang, 'posix');
    case 'lang_android':
      return languageInStyle(vars.lang, 'android');
    case 'mapping':
      return vars.mapping;
    case 'ext':
      return outputExtOf(vars);
  }
  const rel = path.sep === '\\' ? vars.relPath.replaceAll('\\', '/') : vars.relPath;
  const slash = rel.lastIndexOf('/');
  const dir = slash === -1 ? '' : rel.slice(0, slash);
  if (name === 'dir') return dir;
  // The stem as path.posix.parse names it: a leading dot does not start an extension.
  const base = rel.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  if (name === 'stem') return stem;
  const ext = outputExtOf(vars);
  const file = ext ? `${stem}.${ext}` : stem;
  if (name === 'name') return file;
  return dir ? `${dir}/${file}` : file; // path
}

function outputExtOf(vars: OutputVars): string {
  return vars.outputExt.startsWith('.') ? vars.outputExt.slice(1) : vars.outputExt;
}

/**
 * Render an output path pattern for one source file and target: relative to the manifest folder,
 * normalised, '/' separators. Throws OutputPathError for an unknown placeholder or when the result
 * would leave the pattern's output root (e.g. a `..` in the file's relative path).
 */
export function renderOutputPath(pattern: string, vars: OutputVars): string {
  const c = compile(pattern);
  checkValue(pattern, c.root, vars, 'file path', vars.relPath);
  checkValue(pattern, c.root, vars, 'mapping name', vars.mapping);
  checkValue(pattern, c.root, vars, 'language', vars.lang);
  if (c.unknown !== undefined) {
    throw new OutputPathError(
      `unknown placeholder {${c.unknown}} in output pattern '${pattern}'`,
      pattern,
      vars.relPath,
    );
  }
  let rendered = c.parts[0] ?? '';
  for (let i = 1; i < c.parts.length; i += 2)
    rendered += placeholderValue(c.parts[i] as OutputPlaceholder, vars) + (c.parts[i + 1] ?? '');
  const result = normaliseRendered(rendered);
  const root = c.root;
  if (!isInsideNormalised(root, result) || result === root || result === '.') {
    throw new OutputPathError(
      `output path '${result}' for '${vars.relPath}' is not inside the output root '${root}' of pattern '${pattern}'`,
      pattern,
      vars.relPath,
    );
  }
  return result;
}

/** A file path, mapping name or language with a '..' segment or absolute would leave the root. */
function checkValue(pattern: string, root: string, vars: OutputVars, what: string, value: string): void {
  const leaves =
    path.sep === '\\'
      ? PARENT_SEGMENT.test(value) || ABSOLUTE.test(value)
      : PARENT_SEGMENT_POSIX.test(value) || value.startsWith('/');
  if (leaves) {
    throw new OutputPathError(
      `${what} '${value}' would leave the output root '${root}' of pattern '${pattern}'`,
      pattern,
      vars.relPath,
    );
  }
}
