import type { LoadedManifest } from '../manifest/types.js';
import { ConfigError } from '../util/errors.js';
import { manifestLanguage } from './languages.js';

// The language pairs of the manifest (or of one mapping) a memory is brought in for: by the source
// language as the memory's keys write it (lower-case; null for a mapping whose source language the
// service detects), the target languages of the mappings with that source.

export interface LanguagePairs {
  bySource: Map<string | null, string[]>;
  /** For messages: the source languages, the mappings. */
  sourceNames: string;
  mappingNames: string;
  /** Whether a source language written so (en-US) is one of these mappings' (or one is detected). */
  takesSource(tag: string): boolean;
}

export function languagePairs(loaded: LoadedManifest, mapping: string | undefined): LanguagePairs {
  const mappings = loaded.manifest.mappings.filter((m) => mapping === undefined || m.name === mapping);
  if (mappings.length === 0)
    throw new ConfigError(
      `${loaded.path}: no mapping named "${mapping}" (mappings: ${loaded.manifest.mappings.map((m) => m.name).join(', ')})`,
    );
  const bySource = new Map<string | null, string[]>();
  for (const m of mappings) {
    const source = m.source_lang?.toLowerCase() ?? null;
    const targets = bySource.get(source) ?? [];
    for (const t of m.targets) if (!targets.includes(t.lang)) targets.push(t.lang);
    bySource.set(source, targets);
  }
  const sources = [...bySource.keys()];
  return {
    bySource,
    sourceNames: sources.map((s) => s ?? 'detected').join(', '),
    mappingNames:
      mappings.length === 1
        ? `mapping ${mappings[0]?.name}`
        : `the mappings (${mappings.map((m) => m.name).join(', ')})`,
    takesSource: (tag) =>
      sources.some((s) => s === null) ||
      manifestLanguage(
        tag,
        sources.filter((s) => s !== null),
      ) !== undefined,
  };
}
