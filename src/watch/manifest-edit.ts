import type { Logger } from '../log/logger.js';
import { checkManifestFile } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';

// A manifest or style list edit while `locsync watch` runs: the edited file is checked as a start
// would check it, and what it changes is worked out (which mappings to rescan). An edit that does
// not load, or that moves the state, is refused and the previous manifest keeps running.

export type ManifestEdit =
  | { applied: LoadedManifest; mappings: string[] }
  | {
      /** Every error, as the CLI prints it. */
      rejected: string[];
      /** The first line of the first one (/healthz). */
      headline: string | undefined;
    };

/** Loads the edited manifest of `old` again and says whether, and to which mappings, it applies. */
export async function readManifestEdit(old: LoadedManifest, logger: Logger): Promise<ManifestEdit> {
  const { loaded: next, errors } = await checkManifestFile(old.path);
  if (!next) {
    const lines = errors.map((e) => e.format());
    for (const e of errors)
      logger.error(
        { file: e.file, line: e.line, column: e.column },
        `manifest edit not applied (the previous manifest keeps running): ${e.format()}`,
      );
    return { rejected: lines, headline: lines[0]?.split('\n')[0] };
  }
  const stateOf = (l: LoadedManifest) => l.postgres?.url ?? l.statePath;
  if (stateOf(next) !== stateOf(old)) {
    const msg = `${next.path}: the state changed (${stateOf(old)} → ${stateOf(next)}): restart locsync watch to use it; the edit is not applied`;
    logger.error(msg);
    return { rejected: [msg], headline: msg };
  }
  if (JSON.stringify(next.manifest.service) !== JSON.stringify(old.manifest.service))
    logger.warn('service settings changed: they apply after a restart of locsync watch');
  return { applied: next, mappings: changedMappings(old, next) };
}

/** Mappings whose definition, style lists or glossaries differ between two manifests (new mappings included). */
export function changedMappings(old: LoadedManifest, next: LoadedManifest): string[] {
  const describe = (l: LoadedManifest, name: string) => {
    const m = l.manifest.mappings.find((x) => x.name === name);
    if (!m) return undefined;
    const lists = m.targets.map((t) => (t.style ? l.styleLists[t.style] : null));
    const glossaries = m.targets.map((t) => {
      const g = t.glossary ? l.glossaries?.[t.glossary] : undefined;
      return g ? Object.entries(g.dictionaries).map(([p, d]) => [p, [...d.entries]]) : null;
    });
    return JSON.stringify([m, lists, glossaries, l.manifest.max_attempts]);
  };
  return next.manifest.mappings
    .map((m) => m.name)
    .filter((name) => describe(old, name) !== describe(next, name));
}
