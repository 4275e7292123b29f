import type { z } from 'zod';
import { redactUrl } from '../log/secrets.js';
import type { ConfigError } from '../util/errors.js';
import { didYouMeanLanguage } from './language-hint.js';
import { didYouMean } from './suggest.js';
import { formatPath, type DataPath, type YamlSource } from './yaml-source.js';

// zod issues → ConfigErrors located at file:line:column with a message that says what is expected.

/** The parts of zod 4's internal definition we walk to find what a path expects. */
interface Def {
  type: string;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
  options?: Schema[];
  entries?: Record<string, string>;
  values?: unknown[];
  in?: Schema;
  checks?: Array<{ _zod: { def: { check: string; format?: string } } }>;
}
interface Schema {
  _zod: { def: Def };
}

const WRAPPERS = new Set(['optional', 'default', 'nullable', 'prefault', 'readonly', 'catch', 'nonoptional']);

function defOf(schema: unknown): Def {
  let s = schema as Schema;
  while (WRAPPERS.has(s._zod.def.type) && s._zod.def.innerType) s = s._zod.def.innerType;
  if (s._zod.def.type === 'pipe' && s._zod.def.in) return defOf(s._zod.def.in);
  return s._zod.def;
}

/** Every schema that may apply at `path` below `schema` (union branches expanded). */
function schemasAt(schema: unknown, path: DataPath): Schema[] {
  let current: Schema[] = [schema as Schema];
  for (const seg of path) {
    const next: Schema[] = [];
    const visit = (s: Schema): void => {
      const def = defOf(s);
      if (def.type === 'union') def.options?.forEach(visit);
      else if (def.type === 'object' && def.shape?.[String(seg)]) next.push(def.shape[String(seg)]!);
      else if (def.type === 'array' && def.element) next.push(def.element);
      else if (def.type === 'record' && def.valueType) next.push(def.valueType);
    };
    current.forEach(visit);
    current = next;
  }
  const flat: Schema[] = [];
  const flatten = (s: Schema): void => {
    const def = defOf(s);
    if (def.type === 'union') def.options?.forEach(flatten);
    else flat.push(s);
  };
  current.forEach(flatten);
  return flat;
}

/** Keys allowed in the mapping at `path`. */
export function allowedKeys(schema: unknown, path: DataPath): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path)) {
    const def = defOf(s);
    if (def.type === 'object') Object.keys(def.shape ?? {}).forEach((k) => keys.add(k));
  }
  return [...keys];
}

/**
 * Where else in the schema a key is allowed ("service", "mappings[].targets[]"): for a key written
 * in the wrong section. Read from the schema, so a new key is found without a list kept by hand.
 */
export function keyHomes(schema: unknown, key: string): string[] {
  const homes = new Set<string>();
  const walk = (s: Schema, at: string, depth: number): void => {
    if (depth > 8) return;
    const def = defOf(s);
    if (def.type === 'union') def.options?.forEach((o) => walk(o, at, depth + 1));
    else if (def.type === 'array' && def.element) walk(def.element, `${at}[]`, depth + 1);
    else if (def.type === 'record' && def.valueType) walk(def.valueType, `${at}.<name>`, depth + 1);
    else if (def.type === 'object')
      for (const [k, v] of Object.entries(def.shape ?? {})) {
        if (k === key && at) homes.add(at);
        walk(v, at ? `${at}.${k}` : k, depth + 1);
      }
  };
  walk(schema as Schema, '', 0);
  return [...homes];
}

/** "; it belongs under service:" (or under one of several sections), or "". */
function belongsUnder(schema: unknown, key: string, here: DataPath): string {
  // Allowed here in another of its forms (a style list written inline or as a file): not misplaced.
  if (allowedKeys(schema, here).includes(key)) return '';
  const homes = keyHomes(schema, key);
  if (homes.length === 0) return '';
  const list = homes.map((h) => `${h}:`);
  return `; it belongs under ${list.length === 1 ? list[0] : `one of ${list.join(', ')}`} (move it there)`;
}

function enumValues(def: Def): string[] | undefined {
  if (def.type === 'enum' && def.entries) return Object.values(def.entries);
  if (def.type === 'literal' && def.values) return def.values.map(String);
  return undefined;
}

function describeSchema(schema: Schema): string {
  const def = defOf(schema);
  const values = enumValues(def);
  if (values) return values.length === 1 ? String(values[0]) : `one of ${values.join(' | ')}`;
  switch (def.type) {
    case 'string':
      return 'a string';
    case 'number':
      return def.checks?.some((c) => c._zod.def.format === 'safeint') ? 'a whole number' : 'a number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
      return 'a mapping';
    case 'array':
      return def.element ? `a list of ${describeSchema(def.element).replace(/^an? /, '')}s` : 'a list';
    default:
      return def.type;
  }
}

/** What the schema expects at `path`, in words ("a string", "one of de | fr"). */
export function describeExpected(schema: unknown, path: DataPath): string {
  const options = [...new Set(schemasAt(schema, path).map(describeSchema))];
  return options.join(' or ') || 'nothing (no such key)';
}

function valueAt(data: unknown, path: DataPath): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function quote(s: string): string {
  return `'${s.length > 60 ? s.slice(0, 57) + '...' : s}'`;
}

/** "a string ('abc')", "a list", "nothing". */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  switch (typeof v) {
    case 'string':
      return `a string (${quote(v)})`;
    case 'number':
      return `a number (${v})`;
    case 'boolean':
      return `${v}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof v;
  }
}

const LANGUAGE_KEYS = new Set(['lang', 'source_lang', 'language', 'source_language']);
const KEY_ENV_HINT = 'the name of an environment variable (letters, digits and _, not starting with a digit)';

/** Pick the union branch that the input was most likely meant to be (most keys in common). */
function chooseBranch(
  schema: unknown,
  path: DataPath,
  value: unknown,
  branches: z.core.$ZodIssue[][],
): number {
  const options = schemasAt(schema, path);
  const keys = value && typeof value === 'object' ? Object.keys(value) : [];
  // Most keys in common; on a tie the form with fewer keys (more specific: `{ file }` over an inline
  // list when `file` is given), and with no key in common the last, richest form.
  let best = branches.length - 1;
  let bestScore = -1;
  let bestSize = Infinity;
  branches.forEach((_issues, i) => {
    const def = options[i] ? defOf(options[i]) : undefined;
    const shape = def?.type === 'object' ? Object.keys(def.shape ?? {}) : [];
    const score = keys.filter((k) => shape.includes(k)).length;
    const better =
      score > bestScore || (score === bestScore && (score === 0 ? true : shape.length < bestSize));
    if (better) {
      best = i;
      bestScore = score;
      bestSize = shape.length;
    }
  });
  return best;
}

export interface IssueContext {
  source: YamlSource;
  /** The schema the issues were produced by (their paths are relative to `base`). */
  schema: unknown;
  /** The data that was validated (at `base`). */
  data: unknown;
  /** Where that data sits in the file. */
  base?: DataPath;
  /** The whole file's schema, when `schema` is a part of it (where a misplaced key belongs). */
  rootSchema?: unknown;
}

/** `de,fr ja` as the list of targets it meant: `targets: [{ lang: de }, { lang: fr }, { lang: ja }]`. */
function targetsAsList(written: string): string {
  const langs = written.split(/[\s,;]+/).filter(Boolean);
  return `\`targets: [${langs.map((l) => `{ lang: ${l} }`).join(', ')}]\``;
}

/** One ConfigError per problem, each located in the YAML file. */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): ConfigError[] {
  const base = ctx.base ?? [];
  const out: ConfigError[] = [];
  for (const issue of issues) {
    const rel = issue.path as PropertyKey[];
    const path = [...base, ...rel];
    const where = formatPath(path) || 'the document';
    const value = valueAt(ctx.data, rel);
    const last = String(rel[rel.length - 1] ?? '');
    const at = (message: string, key = false) => out.push(ctx.source.errorAt(path, message, { key }));
    const missing = () => {
      const parent = formatPath(path.slice(0, -1));
      at(
        `missing required key '${last}'${parent ? ` in ${parent}` : ''}: expected ${describeExpected(ctx.schema, rel)}`,
      );
    };
    switch (issue.code) {
      case 'unrecognized_keys': {
        const allowed = allowedKeys(ctx.schema, rel);
        for (const key of issue.keys) {
          const hint = didYouMean(key, allowed) || belongsUnder(ctx.rootSchema ?? ctx.schema, key, path);
          const msg = `unknown key '${key}'${path.length ? ` in ${where}` : ''}${hint || `; expected one of: ${allowed.join(', ')}`}`;
          out.push(ctx.source.errorAt([...path, key], msg, { key: true }));
        }
        break;
      }
      case 'invalid_union': {
        if (issue.errors.length === 0) {
          at(`${where}: ambiguous value, matches several forms`);
          break;
        }
        const branch = chooseBranch(ctx.schema, rel, value, issue.errors);
        out.push(
          ...issuesToErrors(issue.errors[branch] ?? [], {
            ...ctx,
            rootSchema: ctx.rootSchema ?? ctx.schema,
            schema: schemasAt(ctx.schema, rel)[branch],
            data: value,
            base: path,
          }),
        );
        break;
      }
      case 'invalid_type': {
        const parentKey = path[path.length - 2];
        const hint =
          typeof value !== 'string'
            ? ''
            : parentKey === 'targets'
              ? ` (write a target as \`- lang: ${value}\`)`
              : last === 'targets'
                ? `; write one mapping per language: ${targetsAsList(value)}`
                : '';
        if (value === undefined) missing();
        else
          at(`${where}: expected ${describeExpected(ctx.schema, rel)}, got ${describeValue(value)}${hint}`);
        break;
      }
      case 'invalid_value': {
        if (value === undefined) {
          missing();
          break;
        }
        const values = issue.values.map(String);
        const got = typeof value === 'string' ? value : String(value);
        const hint =
          typeof value !== 'string'
            ? ''
            : LANGUAGE_KEYS.has(last)
              ? didYouMeanLanguage(value, values)
              : didYouMean(value, values);
        if (values.length === 1) at(`${where}: expected ${values[0]}, got ${describeValue(value)}`);
        else if (LANGUAGE_KEYS.has(last))
          at(`${where}: unknown language '${got}'${hint}; expected one of: ${values.join(', ')}`);
        else at(`${where}: '${got}' is not allowed${hint}; expected one of: ${values.join(' | ')}`);
        break;
      }
      case 'too_big': {
        const max = Number(issue.maximum);
        if (issue.origin === 'string')
          at(`${where} is ${String(value).length} characters long; at most ${max} are allowed`);
        else if (issue.origin === 'array' && last === 'custom_instructions')
          at(
            `${where}: ${(value as unknown[]).length} custom instructions; the service allows at most ${max} per list (split them across several lists)`,
          );
        else if (issue.origin === 'array') at(`${where}: at most ${max} entries are allowed`);
        else at(`${where}: expected at most ${max}, got ${describeValue(value)}`);
        break;
      }
      case 'too_small': {
        const min = Number(issue.minimum);
        if (issue.origin === 'string') at(`${where} must not be empty`);
        else if (issue.origin === 'array')
          at(`${where} needs at least ${min} entr${min === 1 ? 'y' : 'ies'}`);
        else
          at(
            `${where}: expected a number ${issue.inclusive ? 'of at least' : 'greater than'} ${min}, got ${value}`,
          );
        break;
      }
      case 'invalid_format': {
        if (issue.format === 'url')
          at(
            `${where}: expected an http:// or https:// URL such as https://api.example.com, got ${quote(redactUrl(String(value)))}`,
          );
        else if (last === 'key_env') at(`${where}: expected ${KEY_ENV_HINT}, got ${quote(String(value))}`);
        else at(`${where}: ${quote(String(value))} does not match ${issue.pattern ?? issue.format}`);
        break;
      }
      case 'invalid_key': {
        const parent = formatPath(path.slice(0, -1));
        at(
          `key '${last}' in ${parent} is not valid: expected letters, digits, '_', '.' or '-', starting with a letter or digit`,
          true,
        );
        break;
      }
      default:
        at(`${where}: ${issue.message}`);
    }
  }
  return out;
}
