import type { FormatOptions } from '../documents/index.js';
import { glossaryPairOf } from '../manifest/glossary-checks.js';
import { formatOptionsOf } from '../manifest/sections/csv.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { Mapping } from '../manifest/sections/mapping.js';
import { DEFAULT_FAIL_ON, type QaSettings, type SoftCheck } from './checks.js';

// What the checks of one output need from the manifest: its mapping's `qa:` settings (defaults
// applied), the languages, and the glossary entries its target applies.

/** A mapping's `qa:` with the defaults (docs/qa.md): fail_on defaults to DEFAULT_FAIL_ON. */
export function qaSettingsOf(mapping: Pick<Mapping, 'qa'> | undefined): QaSettings {
  const ignore: readonly SoftCheck[] = mapping?.qa?.ignore ?? [];
  const failOn = (mapping?.qa?.fail_on ?? DEFAULT_FAIL_ON).filter((c) => !ignore.includes(c));
  return { failOn, ignore };
}

export interface OutputContext {
  settings: QaSettings;
  sourceLang: string | undefined;
  glossary: ReadonlyMap<string, string> | undefined;
  /** How the mapping's files of an extension are read (a CSV file's columns). */
  readOf(ext: string): FormatOptions | undefined;
}

/**
 * The checks' context of the output of `mappingName`'s source for `targetLang`. A mapping no longer
 * in the manifest gets the defaults (its outputs are still checked).
 */
export function outputContextOf(
  loaded: Pick<LoadedManifest, 'manifest' | 'glossaries'>,
  mappingName: string,
  targetLang: string,
): OutputContext {
  const mapping = loaded.manifest.mappings.find((m) => m.name === mappingName);
  const target = mapping?.targets.find((t) => t.lang.toLowerCase() === targetLang.toLowerCase());
  const sourceLang = mapping?.source_lang?.toLowerCase();
  const dictionary =
    target?.glossary !== undefined && sourceLang !== undefined
      ? loaded.glossaries?.[target.glossary]?.dictionaries[glossaryPairOf(sourceLang, targetLang)]
      : undefined;
  return {
    settings: qaSettingsOf(mapping),
    sourceLang,
    glossary: dictionary?.entries,
    readOf: (ext) => (mapping ? formatOptionsOf(mapping, ext) : undefined),
  };
}
