import { createLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { alignOutputs, type AlignSummary } from '../memory/align.js';
import { exportTmx } from '../memory/export.js';
import { importTmx, type ImportSummary } from '../memory/import.js';
import type { SegmentOrigin, TranslationMemory } from '../state/memory-types.js';
import { ConfigError } from '../util/errors.js';
import { openRunState, type OpenedState } from './open-state.js';

// `locsync memory import | export | align | stats | forget` (docs/memory.md): the segment memory
// moved in and out. A command that writes the memory holds the SQLite state's lock (no sync writes
// meanwhile); on PostgreSQL its import is one transaction beside the workers.

export interface MemoryOptions {
  config: string;
  json?: boolean;
}

const ORIGINS: readonly SegmentOrigin[] = ['service', 'reviewed', 'imported'];

function originOf(value: string | undefined, allowed: readonly string[], flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value))
    throw new ConfigError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value;
}

/** Opens the state (its lock when `writes` on SQLite) and hands over its memory. */
export async function withMemory<T>(
  opts: MemoryOptions,
  command: string,
  writes: boolean,
  work: (loaded: LoadedManifest, memory: TranslationMemory, opened: OpenedState) => Promise<T>,
): Promise<T> {
  const loaded = await loadManifest(opts.config);
  const opened = await openRunState(loaded, {
    logger: createLogger(),
    command,
    drives: writes && !loaded.postgres,
  });
  try {
    const memory = opened.state.memory;
    if (!memory) throw new ConfigError(`the state at ${opened.location} keeps no translation memory`);
    return await work(loaded, memory, opened);
  } finally {
    await opened.close();
  }
}

const print = (json: boolean | undefined, data: unknown, lines: () => string[]): void => {
  process.stdout.write(json ? JSON.stringify(data, null, 2) + '\n' : lines().join('\n') + '\n');
};

function importLines(s: ImportSummary): string[] {
  const langs = Object.entries(s.translations)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
  const lines = [
    `${s.file}: ${s.units} units read, ${s.stored} translations stored as ${s.origin}${langs ? ` (read: ${langs})` : ''}, import #${s.importId}`,
  ];
  if (s.duplicates > 0)
    lines.push(`  ${s.duplicates} duplicates (same source and languages): the newest by changedate kept`);
  for (const k of s.skipped)
    lines.push(
      `  ${k.units} skipped: ${k.reason} (line ${k.lines.join(', ')}${k.units > k.lines.length ? ', …' : ''})`,
    );
  lines.push(`  take it back with: locsync memory forget --import ${s.importId}`);
  return lines;
}

export async function memoryImportAction(
  file: string,
  opts: MemoryOptions & { origin?: string; mapping?: string },
): Promise<void> {
  const origin = (originOf(opts.origin, ['imported', 'reviewed'], '--origin') ?? 'imported') as
    'imported' | 'reviewed';
  const summary = await withMemory(opts, 'memory import', true, (loaded, memory) =>
    importTmx(loaded, memory, { file, origin, ...(opts.mapping ? { mapping: opts.mapping } : {}) }),
  );
  print(opts.json, summary, () => importLines(summary));
}

export async function memoryExportAction(
  opts: MemoryOptions & { format?: string; out?: string; lang?: string; origin?: string[] },
): Promise<void> {
  if ((opts.format ?? 'tmx') !== 'tmx') throw new ConfigError(`--format must be tmx (got "${opts.format}")`);
  if (!opts.out) throw new ConfigError('memory export needs -o <file>');
  const origins = (opts.origin ?? []).map((o) => originOf(o, ORIGINS, '--origin') as SegmentOrigin);
  const out = opts.out;
  const summary = await withMemory(opts, 'memory export', false, (_loaded, memory) =>
    exportTmx(memory, out, {
      ...(opts.lang ? { targetLang: opts.lang.toLowerCase() } : {}),
      ...(origins.length > 0 ? { origins } : {}),
    }),
  );
  print(opts.json, summary, () => [
    `${summary.file}: ${summary.units} units written (TMX 1.4b)`,
    ...(summary.unknownSource > 0
      ? [`  ${summary.unknownSource} left out: their source language was detected by the service, not known`]
      : []),
  ]);
}

function alignLines(s: AlignSummary): string[] {
  const lines = [
    `${s.aligned} documents aligned, ${s.stored} translations stored as reviewed${s.importId ? `, import #${s.importId}` : ''}`,
  ];
  for (const m of s.mismatched) lines.push(`  not aligned: ${m.output} (${m.source}): ${m.why}`);
  if (s.missing > 0) lines.push(`  ${s.missing} outputs not on disk (nothing to align)`);
  return lines;
}

export async function memoryAlignAction(
  opts: MemoryOptions & { mapping?: string; lang?: string },
): Promise<void> {
  const summary = await withMemory(opts, 'memory align', true, (loaded, memory, opened) =>
    alignOutputs(loaded, opened.state, memory, {
      ...(opts.mapping ? { mapping: opts.mapping } : {}),
      ...(opts.lang ? { lang: opts.lang.toLowerCase() } : {}),
    }),
  );
  print(opts.json, summary, () => alignLines(summary));
}

export async function memoryStatsAction(opts: MemoryOptions): Promise<void> {
  const stats = await withMemory(opts, 'memory stats', false, (_l, memory) => memory.stats());
  print(opts.json, stats, () => {
    const total = stats.pairs.reduce((n, p) => n + p.units, 0);
    const lines = [
      `${total} translations${stats.bytes !== undefined ? `, ${(stats.bytes / 1024 / 1024).toFixed(1)} MB in the state` : ''}`,
    ];
    for (const p of stats.pairs)
      lines.push(`  ${p.source_lang ?? '(detected)'} → ${p.target_lang}  ${p.origin}  ${p.units}`);
    if (stats.imports.length > 0) lines.push('Imports:');
    for (const i of stats.imports)
      lines.push(`  #${i.id}  ${i.imported_at}  ${i.origin}  ${i.units}  ${i.file}`);
    return lines;
  });
}

export async function memoryForgetAction(
  opts: MemoryOptions & { origin?: string; import?: string },
): Promise<void> {
  if ((opts.origin === undefined) === (opts.import === undefined))
    throw new ConfigError('memory forget needs one of --origin <origin> or --import <id>');
  const what = opts.origin
    ? { origin: originOf(opts.origin, ORIGINS, '--origin') as SegmentOrigin }
    : { importId: Number(opts.import) };
  if ('importId' in what && !Number.isInteger(what.importId))
    throw new ConfigError(
      `--import must be an import's number (memory stats lists them; got "${opts.import}")`,
    );
  const removed = await withMemory(opts, 'memory forget', true, (_l, memory) => memory.forget(what));
  print(opts.json, { removed }, () => [`${removed} translations removed from the memory`]);
}
