import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { supportsFormality } from '../api/languages.js';
import { FORMALITY_LANGUAGES } from '../api/types.js';
import { baseLanguage } from '../documents/language-tag.js';
import { conversionFormats } from '../documents/format-registry.js';
import { redactUrl } from '../log/secrets.js';
import type { ConfigError } from '../util/errors.js';
import { checkOutputs, outputOverlapWarnings, outputUses } from './output-checks.js';
import { isInside, patternPlaceholders, singleSourceFile, takesTopFolderOnly } from './paths.js';
import { SOURCE_LANGUAGES, variantsOf } from './sections/languages.js';
import { methodFor, usesSegments } from './sections/mapping.js';
import { stateLocation } from '../state/location.js';
import { checkPostgresUrl, isPostgresUrl } from '../state/postgres/url.js';
import { checkQaSettings } from './qa-checks.js';
import { didYouMean } from './suggest.js';
import { sourceMissingMessage } from './source-missing.js';
import { webhookUrl } from './webhook-url.js';
import type { CheckContext } from './types.js';
import { formatPath, type DataPath } from './yaml-source.js';

// Checks that need more than one field at a time (the schema checks each field on its own).

/** The output formats that are a conversion (the format registry's: pdf → docx). */
const CONVERSION_FORMATS = conversionFormats();

export type { CheckContext, StyleListSource } from './types.js';

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
      if (target.output_format !== undefined && methodFor(mapping, target) === 'segments') {
        errors.push(
          source.errorAt(
            at('output_format'),
            `${where('output_format')}: output_format converts pdf to docx on the document path, but this target uses method: segments, which keeps each file's format and cannot translate pdf; remove output_format or use method: document for this target`,
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

/** A PostgreSQL `state:` URL is readable and holds no password; `postgres:` goes with such a URL only. */
function checkStateUrl(ctx: CheckContext, errors: ConfigError[]): void {
  const { manifest, source } = ctx;
  if (isPostgresUrl(manifest.state)) {
    const problem = checkPostgresUrl(manifest.state);
    if (problem) errors.push(source.errorAt(['state'], problem));
  } else if (manifest.postgres) {
    errors.push(
      source.errorAt(
        ['postgres'],
        `postgres: options of a PostgreSQL state, but state is the SQLite file '${manifest.state}'; set state: postgres://user@host:5432/database, or remove postgres:`,
        { key: true },
      ),
    );
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
  checkStateUrl(ctx, errors);
  const state = stateLocation(manifest, dir).statePath;
  const stateWritten = source.nodeAt([manifest.postgres ? 'postgres' : 'state']).found;
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
  checkQaSettings(ctx, errors);
  checkWebhookEnv(ctx, errors, false);
  return errors;
}

/**
 * A webhook URL read from the environment: a value that is not an http(s) URL is an error (every
 * command would refuse it), a variable not set only a warning (validate may run where the secret is
 * not, such as a pull request's CI; sync and watch refuse to start without it).
 */
function checkWebhookEnv(ctx: CheckContext, found: ConfigError[], unset: boolean): void {
  const webhook = ctx.manifest.notify?.webhook;
  if (!webhook) return;
  const url = webhookUrl(webhook);
  if ('problem' in url && url.unset === unset)
    found.push(ctx.source.errorAt(['notify', 'webhook', 'url_env'], url.problem));
}

/**
 * Source folders that are not there: `validate` names each as an error (a typo in source:, a share
 * not mounted), unless the mapping allows it (allow_missing). Loading does not fail on them: sync
 * fails with its own reason (source-missing) and watch reports itself degraded until they are back.
 */
export function missingSourceErrors(ctx: CheckContext): ConfigError[] {
  return ctx.manifest.mappings.flatMap((m, mi) =>
    m.allow_missing || existsSync(path.resolve(ctx.dir, m.source))
      ? []
      : [
          ctx.source.errorAt(
            ['mappings', mi, 'source'],
            `mappings[${mi}].source: ${sourceMissingMessage(m.source, 'missing')}`,
          ),
        ],
  );
}

function isEmptyFolder(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

/**
 * Things that are allowed but probably not meant (validate shows them; loading does not fail):
 * a style list no target uses, a source folder that does not exist, a pattern that flattens
 * sub-folders ({name} or {stem} without {dir} or {path}), patterns of different targets that can
 * render the same path for some files.
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
    // A mapping of one file (`include: [en.json]`, docs/strings/), or of the files at the top of
    // its folder named by {name} or {stem}, has no sub-folders to flatten.
    const byName = names.includes('name') || names.includes('stem');
    const flat =
      !names.includes('path') &&
      !names.includes('dir') &&
      singleSourceFile(use.mapping) === undefined &&
      !(byName && takesTopFolderOnly(use.mapping));
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
    m.targets.forEach((t, ti) => {
      const variants = variantsOf(t.lang);
      if (variants)
        warnings.push(
          source.errorAt(
            ['mappings', mi, 'targets', ti, 'lang'],
            `mappings[${mi}].targets[${ti}].lang: '${t.lang}' leaves the regional variant to the service, which may change it; write ${variants.map((v) => `'${v}'`).join(' or ')}`,
          ),
        );
    });
    if (usesSegments(m) && !m.source_lang)
      warnings.push(
        source.errorAt(
          ['mappings', mi, m.method ? 'method' : 'targets'],
          `mappings[${mi}]: method: segments without source_lang: the service then detects the language of each segment on its own, and short ones (a heading, a cell) are often taken for another language; set source_lang`,
        ),
      );
    const abs = path.resolve(ctx.dir, m.source);
    if (!m.allow_missing && existsSync(abs) && isEmptyFolder(abs))
      warnings.push(
        source.errorAt(
          ['mappings', mi, 'source'],
          `mappings[${mi}].source: folder '${m.source}' is empty: nothing to translate yet (if it is a share, is it mounted?)`,
        ),
      );
  });
  if (manifest.service.url !== undefined && redactUrl(manifest.service.url) !== manifest.service.url)
    warnings.push(
      source.errorAt(
        ['service', 'url'],
        `service.url: the URL holds a password, and the manifest is a plain file (kept in git); locsync never prints it, but prefer a URL without one (the API key comes from service.key_env)`,
      ),
    );
  checkWebhookEnv(ctx, warnings, true);
  warnings.push(...outputOverlapWarnings(ctx));
  return warnings;
}
