import type { ConfigError } from '../util/errors.js';
import { baseLanguage } from '../documents/language-tag.js';
import type { Manifest } from './schema.js';
import { didYouMean } from './suggest.js';
import type { ResolvedGlossary } from './types.js';
import type { YamlSource } from './yaml-source.js';

// Checks of the targets that use a glossary of the manifest (`glossary: <key>`).

/** The dictionary pair a target uses: "en-de" for source en and target de, pt-br → pt. */
export function glossaryPairOf(sourceLang: string, targetLang: string): string {
  return `${baseLanguage(sourceLang)}-${baseLanguage(targetLang)}`;
}

export function checkGlossaryTargets(
  manifest: Manifest,
  source: YamlSource,
  glossaries: Record<string, ResolvedGlossary>,
  errors: ConfigError[],
): void {
  const keys = Object.keys(manifest.glossaries);
  manifest.mappings.forEach((mapping, mi) => {
    mapping.targets.forEach((target, ti) => {
      if (target.glossary === undefined) return;
      const at = ['mappings', mi, 'targets', ti, 'glossary'];
      const where = `mappings[${mi}].targets[${ti}].glossary`;
      if (!keys.includes(target.glossary)) {
        errors.push(
          source.errorAt(
            at,
            `${where}: unknown glossary '${target.glossary}'${didYouMean(target.glossary, keys)}; defined in glossaries: ${keys.join(', ') || 'none'}`,
          ),
        );
        return;
      }
      if (target.glossary_id !== undefined) {
        errors.push(
          source.errorAt(at, `${where}: give either glossary (a key of glossaries) or glossary_id, not both`),
        );
        return;
      }
      if (!mapping.source_lang) {
        errors.push(
          source.errorAt(
            at,
            `${where}: a glossary needs the source language; set source_lang of mapping '${mapping.name}'`,
          ),
        );
        return;
      }
      const glossary = glossaries[target.glossary];
      const pair = glossaryPairOf(mapping.source_lang, target.lang);
      if (glossary && !glossary.dictionaries[pair]) {
        errors.push(
          source.errorAt(
            at,
            `${where}: glossary '${target.glossary}' has no ${pair} entries (it has: ${Object.keys(glossary.dictionaries).join(', ') || 'none'}); add entries or files for ${pair}`,
          ),
        );
      }
    });
  });
}

/** Glossaries no target uses (allowed, probably not meant). */
export function glossaryWarnings(manifest: Manifest, source: YamlSource): ConfigError[] {
  const used = new Set(manifest.mappings.flatMap((m) => m.targets.map((t) => t.glossary)));
  return Object.keys(manifest.glossaries)
    .filter((key) => !used.has(key))
    .map((key) =>
      source.errorAt(['glossaries', key], `glossary '${key}' is not used by any target`, { key: true }),
    );
}
