import fs from 'node:fs';
import path from 'node:path';
import type { ConfigError } from '../util/errors.js';
import {
  isInside,
  isOutputPlaceholder,
  LANGUAGE_PLACEHOLDERS,
  outputRoot,
  patternPlaceholders,
  singleSourceFile,
  withLanguage,
} from './paths.js';
import { extensionOf, IN_PLACE_FORMATS, isInPlaceFormat } from '../documents/format-registry.js';
import { patternOverlap } from './pattern-overlap.js';
import type { Manifest } from './schema.js';
import { OUTPUT_PLACEHOLDERS, type Mapping, type Target } from './sections/mapping.js';
import { didYouMean } from './suggest.js';
import type { CheckContext } from './types.js';
import { formatPath, type DataPath } from './yaml-source.js';

// Checks of the output patterns of a manifest: each pattern on its own, two (mapping, target)s
// writing the same paths (an error) or paths that can coincide for some files (a warning), and
// output folders inside source folders or around them, also through links. Every check is linear
// in the number of mappings: a generated manifest may have 100,000 of them.

/** Placeholders whose presence makes each source file's output path different. */
const FILE_PLACEHOLDERS = ['path', 'name', 'stem'];

/** A '..' segment (either separator). */
const PARENT_SEGMENT = /(?:^|[\\/])\.\.(?:[\\/]|$)/;

export interface OutputUse {
  mapping: Mapping;
  mi: number;
  target: Target;
  ti: number;
  pattern: string;
  /** Where the pattern is written. */
  at: DataPath;
}

/** Each (mapping, target) with the output pattern it uses. */
export function outputUses(manifest: Manifest): OutputUse[] {
  return manifest.mappings.flatMap((mapping, mi) =>
    mapping.targets.map((target, ti) => ({
      mapping,
      mi,
      target,
      ti,
      pattern: target.output ?? mapping.output,
      at:
        target.output !== undefined ? ['mappings', mi, 'targets', ti, 'output'] : ['mappings', mi, 'output'],
    })),
  );
}

/** The pattern of a use with what is fixed per (mapping, target) filled in: {lang}, {LANG}, {mapping}. */
function fixedPattern(use: OutputUse): string {
  return withLanguage(use.pattern, use.target.lang).replaceAll('{mapping}', use.mapping.name);
}

/**
 * Two uses with the same key write the same files. {path} = {dir}/{name} and {name} =
 * {stem}.{ext} are expanded so equivalent spellings compare equal.
 */
function collisionKey(use: OutputUse): string {
  return path.posix.normalize(
    fixedPattern(use).replaceAll('{path}', '{dir}/{name}').replaceAll('{name}', '{stem}.{ext}'),
  );
}

function checkPattern(
  ctx: CheckContext,
  pattern: string,
  at: DataPath,
  errors: ConfigError[],
  singleFile: boolean,
): void {
  const where = formatPath(at);
  const names = patternPlaceholders(pattern);
  const known = Object.keys(OUTPUT_PLACEHOLDERS);
  for (const name of names.filter((n) => !isOutputPlaceholder(n))) {
    errors.push(
      ctx.source.errorAt(
        at,
        `${where}: unknown placeholder {${name}} in '${pattern}'${didYouMean(name, known)}; expected one of: ${known.map((k) => `{${k}}`).join(' ')}`,
      ),
    );
  }
  if (/[{}]/.test(pattern.replace(/\{[^{}]*\}/g, ''))) {
    errors.push(ctx.source.errorAt(at, `${where}: unbalanced '{' or '}' in '${pattern}'`));
  }
  if (!singleFile && !names.some((n) => FILE_PLACEHOLDERS.includes(n))) {
    errors.push(
      ctx.source.errorAt(
        at,
        `${where}: '${pattern}' names no file placeholder, so every file would be written to the same path; use {path} (or {dir}/{stem}.{ext})`,
      ),
    );
  }
  // A leading '../' names a folder beside the manifest's; a '..' further in would move outputs out
  // of the folder the pattern names (and past the collision and containment checks).
  if (PARENT_SEGMENT.test(pattern.replace(/^(?:\.\.[\\/])+/, ''))) {
    errors.push(
      ctx.source.errorAt(
        at,
        `${where}: '..' inside the output pattern '${pattern}'; write the folder it means without '..' (only a leading '../' is allowed, for a folder beside the manifest's)`,
      ),
    );
  }
}

/**
 * Whether a use writes each source file of its mapping into that file itself (`App/{path}` for
 * source App, or a one-file mapping's file named as it is): the targets of a format whose one file
 * holds every language (.xcstrings) are written so (./in-place-output.ts).
 */
function writesIntoSource(ctx: CheckContext, use: OutputUse): boolean {
  const m = use.mapping;
  const single = singleSourceFile(m);
  if (
    single !== undefined &&
    path.resolve(ctx.dir, fixedPattern(use)) === path.resolve(ctx.dir, m.source, single)
  )
    return true;
  return collisionKey(use) === path.posix.normalize(`${m.source.replaceAll('\\', '/')}/{dir}/{stem}.{ext}`);
}

/** A mapping whose include patterns all name files of a format that holds every language. */
function takesInPlaceFormatsOnly(m: Mapping): boolean {
  return m.include.every((p) => isInPlaceFormat(extensionOf(p)));
}

/** Every problem of the output patterns: each pattern, same paths written twice, folders inside sources. */
export function checkOutputs(ctx: CheckContext, errors: ConfigError[]): void {
  const uses = outputUses(ctx.manifest);
  const checked = new Set<string>();
  for (const use of uses) {
    const key = use.at.join('\0');
    if (checked.has(key)) continue;
    checked.add(key);
    // A pattern is written in one mapping (its output, or a target's): that mapping decides.
    checkPattern(ctx, use.pattern, use.at, errors, singleSourceFile(use.mapping) !== undefined);
  }
  const intoSource = uses.filter((use) => writesIntoSource(ctx, use));
  checkIntoSource(ctx, intoSource, errors);
  const apart = uses.filter((use) => !intoSource.includes(use));
  checkSamePaths(ctx, apart, errors);
  checkOutputFolders(ctx, apart, errors);
}

/**
 * Outputs written into their source files: every target of a String Catalog is a part of the one
 * file (docs/strings/xcstrings.md). Any other format holds one language: refused, naming the files.
 */
function checkIntoSource(ctx: CheckContext, uses: OutputUse[], errors: ConfigError[]): void {
  const reported = new Set<string>();
  for (const use of uses) {
    const m = use.mapping;
    const key = use.at.join('\0');
    if (takesInPlaceFormatsOnly(m) || reported.has(key)) continue;
    reported.add(key);
    const files = singleSourceFile(m) ?? m.include.join(', ');
    const formats = IN_PLACE_FORMATS.map((e) => `.${e}`).join(', ');
    errors.push(
      ctx.source.errorAt(
        use.at,
        `${formatPath(use.at)}: '${use.pattern}' writes the files of mapping '${m.name}' (${files} in '${m.source}') into themselves, over their source text; only a format whose one file holds every language (${formats}) has its targets written into its source file; write the others to a folder of their own such as out/{lang}/{path}`,
      ),
    );
  }
}

/** Two uses writing the same paths. */
function checkSamePaths(ctx: CheckContext, uses: OutputUse[], errors: ConfigError[]): void {
  const seen = new Map<string, OutputUse>();
  for (const use of uses) {
    const key = collisionKey(use);
    const first = seen.get(key);
    if (!first) {
      seen.set(key, use);
      continue;
    }
    const pos = ctx.source.position(first.at);
    const names = patternPlaceholders(use.pattern);
    let message: string;
    if (first.mi === use.mi && first.target.lang === use.target.lang) {
      message = `${formatPath(['mappings', use.mi, 'targets', use.ti, 'lang'])}: target '${use.target.lang}' appears twice in mapping '${use.mapping.name}' with the same output pattern; their outputs would overwrite each other`;
    } else if (!LANGUAGE_PLACEHOLDERS.some((n) => names.includes(n)) && first.mi === use.mi) {
      message = `${formatPath(use.at)}: output pattern '${use.pattern}' has no {lang} or {LANG} but is used by several targets of mapping '${use.mapping.name}' (${first.target.lang}, ${use.target.lang}); their outputs would overwrite each other`;
    } else {
      message = `${formatPath(use.at)}: outputs of mapping '${use.mapping.name}' (${use.target.lang}) collide with those of mapping '${first.mapping.name}' (${first.target.lang}, line ${pos.line}): both write '${key}'; use different folders or add {mapping} to a pattern`;
    }
    errors.push(ctx.source.errorAt(use.at, message));
  }
}

/**
 * Pairs of uses whose patterns differ but can render the same path for some files (out/{lang}/{path}
 * and out/{lang}/api/{path}: a file api/x of the first and x of the second). Allowed, since the
 * folders may never hold such files, but each such file is a collision: the later one is not written.
 */
export function outputOverlapWarnings(ctx: CheckContext): ConfigError[] {
  const warnings: ConfigError[] = [];
  const uses = outputUses(ctx.manifest).map((use) => {
    const fixed = path.posix.normalize(fixedPattern(use).replaceAll('\\', '/'));
    const brace = fixed.indexOf('{');
    return { use, fixed, prefix: brace === -1 ? fixed : fixed.slice(0, brace), key: collisionKey(use) };
  });
  // Only patterns whose fixed beginnings agree can meet: sorted, the patterns whose beginning
  // extends a given one follow it.
  uses.sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
  const reported = new Set<string>();
  for (let i = 0; i < uses.length; i++) {
    const a = uses[i]!;
    for (let j = i + 1; j < uses.length && uses[j]!.prefix.startsWith(a.prefix); j++) {
      const b = uses[j]!;
      if (a.key === b.key) continue; // the same paths: an error of checkSamePaths
      const [first, later] = a.use.mi <= b.use.mi ? [a, b] : [b, a];
      const pair = `${formatPath(first.use.at)}|${formatPath(later.use.at)}`;
      if (reported.has(pair)) continue;
      const example = patternOverlap(a.fixed, b.fixed);
      if (example === undefined) continue;
      reported.add(pair);
      const line = ctx.source.position(first.use.at).line;
      warnings.push(
        ctx.source.errorAt(
          later.use.at,
          `${formatPath(later.use.at)}: outputs of mapping '${later.use.mapping.name}' (${later.use.target.lang}, '${later.use.pattern}') can overlap those of mapping '${first.use.mapping.name}' (${first.use.target.lang}, '${first.use.pattern}', line ${line}): both can write '${example}' ('x' standing for any name); such a file is a collision and is not overwritten; use separate folders or add {mapping} to a pattern`,
        ),
      );
    }
  }
  return warnings;
}

/**
 * An absolute path with the links of its existing part followed (the part that does not exist yet
 * is kept as written): where files written under `p` would land.
 */
export function resolveLinks(p: string, cache = new Map<string, string>()): string {
  const known = cache.get(p);
  if (known !== undefined) return known;
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    const parent = path.dirname(p);
    real = parent === p ? p : path.join(resolveLinks(parent, cache), path.basename(p));
  }
  cache.set(p, real);
  return real;
}

/** `p` and each folder above it (the keys under which a folder containing it is found). */
function* selfAndAncestors(p: string): Generator<string> {
  for (let at = p; ;) {
    yield at;
    const up = path.dirname(at);
    if (up === at) return;
    at = up;
  }
}

/**
 * The folder a target's outputs go to (content/de for content/{lang}/{path}) and the source folders
 * must not contain each other, as written or with links followed: content/en → content/{lang}/{path}
 * is fine, out → src/translated (a link) is not.
 */
function checkOutputFolders(ctx: CheckContext, uses: OutputUse[], errors: ConfigError[]): void {
  const links = new Map<string, string>();
  const sources = ctx.manifest.mappings.map((m) => {
    const abs = path.resolve(ctx.dir, m.source);
    return { m, abs, real: resolveLinks(abs, links) };
  });
  const sourcesAt = new Map<string, number[]>();
  const add = <T>(map: Map<string, T[]>, key: string, v: T) => {
    const list = map.get(key);
    if (!list) map.set(key, [v]);
    else if (!list.includes(v)) list.push(v);
  };
  sources.forEach((s, i) => {
    add(sourcesAt, s.abs, i);
    add(sourcesAt, s.real, i);
  });
  const roots = uses.map((use) => {
    const abs = path.resolve(ctx.dir, outputRoot(fixedPattern(use)));
    return { use, abs, real: resolveLinks(abs, links) };
  });
  const rootsAt = new Map<string, number[]>();
  roots.forEach((r, i) => {
    add(rootsAt, r.abs, i);
    add(rootsAt, r.real, i);
  });

  const reported = new Set<string>();
  const report = (ri: number, si: number, kind: 'output-in-source' | 'source-in-output') => {
    const { use, abs, real } = roots[ri]!;
    const { m, abs: srcAbs } = sources[si]!;
    // A one-file mapping's outputs beside its source (locales/en.json → locales/de.json) are never
    // read back: the mapping takes that one file only. Its output must not be that file.
    const single = use.mapping === m ? singleSourceFile(m) : undefined;
    if (single !== undefined && path.resolve(ctx.dir, fixedPattern(use)) !== path.resolve(srcAbs, single))
      return;
    // Once per pattern, mapping and kind (not once per target of the pattern).
    const key = `${use.at.join('.')}|${m.name}|${kind}`;
    if (reported.has(key)) return;
    reported.add(key);
    const rootRel = path.relative(ctx.dir, abs) || '.';
    const lexical = kind === 'output-in-source' ? isInside(srcAbs, abs) : isInside(abs, srcAbs);
    const via = lexical ? '' : ` (which resolves, following links, to '${real}')`;
    const message =
      kind === 'output-in-source'
        ? `${formatPath(use.at)}: output folder '${rootRel}' of '${use.pattern}'${via} is inside the source folder '${m.source}' of mapping '${m.name}'; translations would be read back as sources; put outputs outside every source folder`
        : `${formatPath(use.at)}: the source folder '${m.source}' of mapping '${m.name}' is inside the output folder '${rootRel}' of '${use.pattern}'${via}; start the pattern with a folder of its own such as out/{lang}/{path}`;
    errors.push(ctx.source.errorAt(use.at, message));
  };
  roots.forEach((r, ri) => {
    for (const p of [r.abs, r.real])
      for (const up of selfAndAncestors(p))
        for (const si of sourcesAt.get(up) ?? []) report(ri, si, 'output-in-source');
  });
  sources.forEach((s, si) => {
    for (const p of [s.abs, s.real])
      for (const up of selfAndAncestors(p))
        for (const ri of rootsAt.get(up) ?? []) report(ri, si, 'source-in-output');
  });
}
