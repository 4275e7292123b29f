import { existsSync } from 'node:fs';
import path from 'node:path';
import { FORMALITY_LANGUAGES } from '../api/types.js';
import type { ConfigError } from '../util/errors.js';
import { isInside, isOutputPlaceholder, outputRoot, patternPlaceholders } from './paths.js';
import { OUTPUT_PLACEHOLDERS, SOURCE_LANGUAGES, type Manifest, type Mapping, type Target } from './schema.js';
import { didYouMean } from './suggest.js';
import type { ResolvedStyleList } from './types.js';
import { formatPath, type DataPath, type YamlSource } from './yaml-source.js';

// Checks that need more than one field at a time (the schema checks each field on its own).

/** Base language of a target language: pt-br → pt, zh-hans → zh, en-gb → en. */
export function baseLanguage(lang: string): string {
  return lang.toLowerCase().split('-')[0] ?? lang;
}

/** Whether formality more/less works for a target language (prefer_* always works). */
export function supportsFormality(lang: string): boolean {
  return (FORMALITY_LANGUAGES as readonly string[]).includes(lang.toUpperCase());
}

/** Placeholders whose presence makes each source file's output path different. */
const FILE_PLACEHOLDERS = ['path', 'name', 'stem'];
/** The only output_format that is a conversion (pdf → docx). */
const CONVERSION_FORMATS = ['docx'];

export interface StyleListSource {
  source: YamlSource;
  base: DataPath;
}

export interface CheckContext {
  manifest: Manifest;
  /** The manifest's YAML (positions). */
  source: YamlSource;
  /** Absolute folder of the manifest. */
  dir: string;
  styleLists: Record<string, ResolvedStyleList>;
  styleSources: Record<string, StyleListSource>;
}

interface OutputUse {
  mapping: Mapping;
  mi: number;
  target: Target;
  ti: number;
  pattern: string;
  /** Where the pattern is written. */
  at: DataPath;
}

/** Each (mapping, target) with the output pattern it uses. */
function outputUses(manifest: Manifest): OutputUse[] {
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
  return use.pattern
    .replaceAll('{lang}', use.target.lang)
    .replaceAll('{LANG}', use.target.lang.toUpperCase())
    .replaceAll('{mapping}', use.mapping.name);
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

function checkPattern(ctx: CheckContext, pattern: string, at: DataPath, errors: ConfigError[]): void {
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
  if (!names.some((n) => FILE_PLACEHOLDERS.includes(n))) {
    errors.push(
      ctx.source.errorAt(
        at,
        `${where}: '${pattern}' names no file placeholder, so every file would be written to the same path; use {path} (or {dir}/{stem}.{ext})`,
      ),
    );
  }
}

function checkOutputs(ctx: CheckContext, errors: ConfigError[]): void {
  const uses = outputUses(ctx.manifest);
  const checked = new Set<string>();
  for (const use of uses) {
    const key = use.at.join('\0');
    if (checked.has(key)) continue;
    checked.add(key);
    checkPattern(ctx, use.pattern, use.at, errors);
  }

  // Two uses writing the same paths.
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
    } else if (!names.includes('lang') && !names.includes('LANG') && first.mi === use.mi) {
      message = `${formatPath(use.at)}: output pattern '${use.pattern}' has no {lang} or {LANG} but is used by several targets of mapping '${use.mapping.name}' (${first.target.lang}, ${use.target.lang}); their outputs would overwrite each other`;
    } else {
      message = `${formatPath(use.at)}: outputs of mapping '${use.mapping.name}' (${use.target.lang}) collide with those of mapping '${first.mapping.name}' (${first.target.lang}, line ${pos.line}): both write '${key}'; use different folders or add {mapping} to a pattern`;
    }
    errors.push(ctx.source.errorAt(use.at, message));
  }

  // The folder a target's outputs go to (content/de for content/{lang}/{path}) and the source
  // folders must not contain each other: content/en → content/{lang}/{path} is fine.
  const reported = new Set<string>();
  for (const use of uses) {
    const root = path.resolve(ctx.dir, outputRoot(fixedPattern(use)));
    ctx.manifest.mappings.forEach((m) => {
      const src = path.resolve(ctx.dir, m.source);
      const rootRel = path.relative(ctx.dir, root) || '.';
      let message: string | undefined;
      let kind = '';
      if (isInside(src, root)) {
        kind = 'output-in-source';
        message = `${formatPath(use.at)}: output folder '${rootRel}' of '${use.pattern}' is inside the source folder '${m.source}' of mapping '${m.name}'; translations would be read back as sources; put outputs outside every source folder`;
      } else if (isInside(root, src)) {
        kind = 'source-in-output';
        message = `${formatPath(use.at)}: the source folder '${m.source}' of mapping '${m.name}' is inside the output folder '${rootRel}' of '${use.pattern}'; start the pattern with a folder of its own such as out/{lang}/{path}`;
      }
      // Once per pattern, mapping and kind (not once per target of the pattern).
      const key = `${use.at.join('.')}|${m.name}|${kind}`;
      if (message && !reported.has(key)) {
        reported.add(key);
        errors.push(ctx.source.errorAt(use.at, message));
      }
    });
  }
}

function checkTargets(ctx: CheckContext, errors: ConfigError[]): void {
  const { manifest, source } = ctx;
  const listKeys = Object.keys(ctx.styleLists);
  manifest.mappings.forEach((mapping, mi) => {
    mapping.targets.forEach((target, ti) => {
      const at = (key: string): DataPath => ['mappings', mi, 'targets', ti, key];
      const where = (key: string) => formatPath(at(key));
      if (mapping.source_lang && baseLanguage(mapping.source_lang) === baseLanguage(target.lang)) {
        errors.push(
          source.errorAt(
            at('lang'),
            `${where('lang')}: target language '${target.lang}' is the source language '${mapping.source_lang}' of mapping '${mapping.name}'; remove the target or change source_lang`,
          ),
        );
      }
      if ((target.formality === 'more' || target.formality === 'less') && !supportsFormality(target.lang)) {
        errors.push(
          source.errorAt(
            at('formality'),
            `${where('formality')}: formality '${target.formality}' is not supported for target '${target.lang}' (only ${FORMALITY_LANGUAGES.join(', ')}); use prefer_${target.formality}, which falls back to the default formality`,
          ),
        );
      }
      if (target.glossary_id !== undefined && !mapping.source_lang) {
        errors.push(
          source.errorAt(
            at('glossary_id'),
            `${where('glossary_id')}: a glossary needs the source language; set source_lang of mapping '${mapping.name}'`,
          ),
        );
      }
      if (
        target.output_format !== undefined &&
        !CONVERSION_FORMATS.includes(target.output_format.toLowerCase())
      ) {
        errors.push(
          source.errorAt(
            at('output_format'),
            `${where('output_format')}: output_format '${target.output_format}' is not a conversion the service offers; the only one is pdf → docx (output_format: docx), every other file keeps its format`,
          ),
        );
      }
      if (target.style !== undefined) {
        const list = ctx.styleLists[target.style];
        if (!list && Object.hasOwn(manifest.style_lists, target.style)) {
          // Declared, but its file is missing or invalid: reported there.
        } else if (!list) {
          errors.push(
            source.errorAt(
              at('style'),
              `${where('style')}: unknown style list '${target.style}'${didYouMean(target.style, listKeys)}; defined in style_lists: ${listKeys.join(', ') || 'none'}`,
            ),
          );
        } else if (list.language !== baseLanguage(target.lang)) {
          const src = ctx.styleSources[target.style];
          const pos = src ? src.source.position([...src.base, 'language']) : undefined;
          const file = src ? path.relative(ctx.dir, src.source.file) : '';
          errors.push(
            source.errorAt(
              at('style'),
              `${where('style')}: style list '${target.style}' is for language '${list.language}'${pos ? ` (${file}:${pos.line})` : ''} but the target language is '${target.lang}'; a style list applies only to its own language`,
            ),
          );
        }
      }
    });
  });
}

function checkMappingNames(ctx: CheckContext, errors: ConfigError[]): void {
  const first = new Map<string, number>();
  ctx.manifest.mappings.forEach((m, mi) => {
    const earlier = first.get(m.name);
    if (earlier === undefined) {
      first.set(m.name, mi);
      return;
    }
    const line = ctx.source.position(['mappings', earlier, 'name']).line;
    errors.push(
      ctx.source.errorAt(
        ['mappings', mi, 'name'],
        `mappings[${mi}].name: duplicate mapping name '${m.name}' (also at line ${line}); mapping names must be unique`,
      ),
    );
  });
}

function checkStyleLists(ctx: CheckContext, errors: ConfigError[]): void {
  const keys = Object.keys(ctx.styleLists);
  if (ctx.manifest.service.plan === 'free' && keys.length > 0) {
    errors.push(
      ctx.source.errorAt(
        ['style_lists'],
        `style_lists: style lists need the pro plan, but service.plan is 'free'; remove style_lists (and the targets' style) or set service.plan: pro`,
        { key: true },
      ),
    );
  }
  for (const key of keys) {
    const list = ctx.styleLists[key]!;
    const src = ctx.styleSources[key];
    if (!src) continue;
    list.custom_instructions.forEach((ci, i) => {
      const lang = ci.source_language;
      if (lang !== undefined && !(SOURCE_LANGUAGES as readonly string[]).includes(lang)) {
        const at = [...src.base, 'custom_instructions', i, 'source_language'];
        errors.push(
          src.source.errorAt(
            at,
            `${formatPath(at)}: unknown language '${lang}'${didYouMean(lang, SOURCE_LANGUAGES)}; expected a lower-case source language: ${SOURCE_LANGUAGES.join(', ')}`,
          ),
        );
      }
    });
    const seen = new Map<string, number>();
    list.custom_instructions.forEach((ci, i) => {
      const earlier = seen.get(ci.label);
      if (earlier === undefined) {
        seen.set(ci.label, i);
        return;
      }
      const at = [...src.base, 'custom_instructions', i, 'label'];
      const line = src.source.position([...src.base, 'custom_instructions', earlier, 'label']).line;
      errors.push(
        src.source.errorAt(
          at,
          `${formatPath(at) || 'label'}: duplicate custom instruction label '${ci.label}' in style list '${key}' (also at line ${line}); instructions are matched by label, so labels must be unique in a list`,
        ),
      );
    });
  }
}

/** Files and folders the manifest names besides style lists: the phrasebook, the state file. */
function checkPaths(ctx: CheckContext, errors: ConfigError[]): void {
  const { manifest, source, dir } = ctx;
  const phrasebook = manifest.service.local.phrasebook;
  if (
    manifest.service.url === undefined &&
    phrasebook !== undefined &&
    !existsSync(path.resolve(dir, phrasebook))
  ) {
    errors.push(
      source.errorAt(
        ['service', 'local', 'phrasebook'],
        `service.local.phrasebook: file '${phrasebook}' not found (looked for ${path.resolve(dir, phrasebook)})`,
      ),
    );
  }
  const state = path.resolve(dir, manifest.state);
  const stateWritten = source.nodeAt(['state']).found;
  manifest.mappings.forEach((m, mi) => {
    if (isInside(path.resolve(dir, m.source), state)) {
      errors.push(
        source.errorAt(
          stateWritten ? ['state'] : ['mappings', mi, 'source'],
          `the state file '${manifest.state}' is inside the source folder '${m.source}' of mapping '${m.name}'; keep it outside every source folder (set state:)`,
        ),
      );
    }
  });
  // {mapping} puts the mapping's name in paths: it must be one folder name.
  manifest.mappings.forEach((m, mi) => {
    const usesName = [m.output, ...m.targets.map((t) => t.output ?? '')].some((p) => p.includes('{mapping}'));
    if (usesName && (/[\\/]/.test(m.name) || m.name === '.' || m.name === '..')) {
      errors.push(
        source.errorAt(
          ['mappings', mi, 'name'],
          `mappings[${mi}].name: '${m.name}' is used as a folder name by {mapping}; it must not contain '/' or '\\' or be '.' or '..'`,
        ),
      );
    }
  });
}

/** Every cross-field problem of a schema-valid manifest. */
export function checkManifest(ctx: CheckContext): ConfigError[] {
  const errors: ConfigError[] = [];
  checkStyleLists(ctx, errors);
  checkMappingNames(ctx, errors);
  checkTargets(ctx, errors);
  checkOutputs(ctx, errors);
  checkPaths(ctx, errors);
  return errors;
}

/**
 * Things that are allowed but probably not meant (validate shows them; loading does not fail):
 * a style list no target uses, a source folder that does not exist, a pattern that flattens
 * sub-folders ({name} or {stem} without {dir} or {path}).
 */
export function manifestWarnings(ctx: CheckContext): ConfigError[] {
  const { manifest, source } = ctx;
  const warnings: ConfigError[] = [];
  const used = new Set(manifest.mappings.flatMap((m) => m.targets.map((t) => t.style)));
  for (const key of Object.keys(manifest.style_lists)) {
    if (!used.has(key))
      warnings.push(
        source.errorAt(['style_lists', key], `style list '${key}' is not used by any target`, { key: true }),
      );
  }
  const flattening = new Set<string>();
  for (const use of outputUses(manifest)) {
    const names = patternPlaceholders(use.pattern);
    const flat = !names.includes('path') && !names.includes('dir');
    const key = use.at.join('.');
    if (flat && !flattening.has(key)) {
      flattening.add(key);
      warnings.push(
        source.errorAt(
          use.at,
          `${formatPath(use.at)}: '${use.pattern}' has no {dir} or {path}: files of different sub-folders with the same name would collide (locsync reports them and skips the second)`,
        ),
      );
    }
  }
  manifest.mappings.forEach((m, mi) => {
    if (!existsSync(path.resolve(ctx.dir, m.source)))
      warnings.push(
        source.errorAt(
          ['mappings', mi, 'source'],
          `mappings[${mi}].source: folder '${m.source}' does not exist (yet)`,
        ),
      );
  });
  return warnings;
}
