import path from 'node:path';
import { stateLocation } from '../state/location.js';
import { ConfigError } from '../util/errors.js';
import { checkManifest, manifestWarnings, missingSourceErrors, type StyleListSource } from './checks.js';
import { checkGlossaryTargets, glossaryWarnings } from './glossary-checks.js';
import { loadGlossaries } from './glossary-load.js';
import { issuesToErrors } from './issues.js';
import { projectRoot, readProjectFile } from './project-file.js';
import { manifestSchema, type Manifest } from './schema.js';
import { styleListBodySchema, type StyleListBody } from './sections/style-list.js';
import type { LoadedManifest, ResolvedStyleList } from './types.js';
import { YamlSource } from './yaml-source.js';

export type { LoadedManifest, ResolvedStyleList } from './types.js';

/** Several mistakes at once; format() lists every one as "file:line:col: message". */
export class ManifestError extends ConfigError {
  constructor(readonly errors: ConfigError[]) {
    const first = errors[0]!;
    super(errors.length === 1 ? first.message : `${first.message} (and ${errors.length - 1} more)`, {
      file: first.file,
      line: first.line,
      column: first.column,
    });
    this.name = 'ManifestError';
  }
  override format(): string {
    return this.errors.map((e) => e.format()).join('\n');
  }
}

async function readSource(
  file: string,
  what: string,
  shown: string,
  root: string | undefined,
  referencedAt?: ConfigError,
): Promise<YamlSource> {
  const read = await readProjectFile(file, root);
  if ('text' in read) return new YamlSource(file, read.text);
  const message = `${what} '${shown}' ${read.problem}${shown !== file ? ` (looked for ${file})` : ''}`;
  if (referencedAt) {
    throw new ConfigError(`${referencedAt.message}: ${message}`, {
      file: referencedAt.file,
      line: referencedAt.line,
      column: referencedAt.column,
    });
  }
  throw new ConfigError(message, { file });
}

function resolveList(
  key: string,
  body: StyleListBody,
  file: string,
  yamlPath: Array<string | number>,
): ResolvedStyleList {
  return {
    key,
    name: body.name ?? key,
    language: body.language,
    drift: body.drift,
    configured_rules: body.configured_rules,
    custom_instructions: body.custom_instructions,
    file,
    yamlPath,
  };
}

/** Style lists of a schema-valid manifest, reading the ones kept in their own files. */
async function loadStyleLists(
  manifest: Manifest,
  source: YamlSource,
  dir: string,
  errors: ConfigError[],
): Promise<{ lists: Record<string, ResolvedStyleList>; sources: Record<string, StyleListSource> }> {
  const lists: Record<string, ResolvedStyleList> = {};
  const sources: Record<string, StyleListSource> = {};
  for (const [key, entry] of Object.entries(manifest.style_lists)) {
    if (!('file' in entry)) {
      lists[key] = resolveList(key, entry, source.file, ['style_lists', key]);
      sources[key] = { source, base: ['style_lists', key] };
      continue;
    }
    const file = path.resolve(dir, entry.file);
    let listSource: YamlSource;
    try {
      listSource = await readSource(
        file,
        'style list file',
        entry.file,
        projectRoot(dir),
        source.errorAt(['style_lists', key, 'file'], `style_lists.${key}.file`),
      );
    } catch (err) {
      errors.push(err as ConfigError);
      continue;
    }
    const syntax = listSource.syntaxErrors();
    if (syntax.length) {
      errors.push(...syntax);
      continue;
    }
    const data = listSource.data();
    const parsed = styleListBodySchema.safeParse(data);
    if (!parsed.success) {
      errors.push(
        ...issuesToErrors(parsed.error.issues, { source: listSource, schema: styleListBodySchema, data }),
      );
      continue;
    }
    lists[key] = resolveList(key, parsed.data, file, []);
    sources[key] = { source: listSource, base: [] };
  }
  return { lists, sources };
}

/** By file, then line and column (stable: errors at one place keep their order). */
function sortErrors(errors: ConfigError[]): ConfigError[] {
  return [...errors].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}

/**
 * Read and check a manifest without throwing: every problem found (schema, style list files,
 * cross-field checks), the loaded manifest when there is none, and warnings (allowed, probably not
 * meant: an unused style list, a missing source folder, a pattern that flattens sub-folders).
 */
export async function checkManifestFile(manifestPath: string): Promise<{
  loaded: LoadedManifest | undefined;
  errors: ConfigError[];
  warnings: ConfigError[];
  /** What loading did that a person should know (a glossary file's header row skipped). */
  notes: ConfigError[];
  /** Source folders that are not there (validate's errors; a run fails on them with its own reason). */
  missingSources: ConfigError[];
}> {
  const file = path.resolve(manifestPath);
  const dir = path.dirname(file);
  let source: YamlSource;
  try {
    source = await readSource(file, 'manifest', file, undefined);
  } catch (err) {
    return { loaded: undefined, errors: [err as ConfigError], warnings: [], notes: [], missingSources: [] };
  }
  const syntax = source.syntaxErrors();
  if (syntax.length)
    return { loaded: undefined, errors: syntax, warnings: [], notes: [], missingSources: [] };

  const data = source.data();
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) {
    const errors = issuesToErrors(parsed.error.issues, { source, schema: manifestSchema, data });
    return { loaded: undefined, errors: sortErrors(errors), warnings: [], notes: [], missingSources: [] };
  }
  const manifest = parsed.data;
  const errors: ConfigError[] = [];
  const { lists, sources } = await loadStyleLists(manifest, source, dir, errors);
  const ctx = { manifest, source, dir, styleLists: lists, styleSources: sources };
  errors.push(...checkManifest(ctx));
  const notes: ConfigError[] = [];
  const glossaries = await loadGlossaries(manifest, source, dir, errors, notes);
  checkGlossaryTargets(manifest, source, glossaries, errors);
  const warnings = sortErrors([...manifestWarnings(ctx), ...glossaryWarnings(manifest, source)]);
  const missingSources = missingSourceErrors(ctx);
  if (errors.length)
    return { loaded: undefined, errors: sortErrors(errors), warnings, notes, missingSources };
  return {
    loaded: {
      path: file,
      dir,
      manifest,
      styleLists: lists,
      glossaries,
      ...stateLocation(manifest, dir, file),
    },
    errors: [],
    warnings,
    notes,
    missingSources,
  };
}

/** Load a manifest strictly; throws a ManifestError (a ConfigError) listing every problem. */
export async function loadManifest(manifestPath: string): Promise<LoadedManifest> {
  const { loaded, errors } = await checkManifestFile(manifestPath);
  if (!loaded) throw new ManifestError(errors);
  return loaded;
}
