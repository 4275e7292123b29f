import type { ConfiguredRules, CustomInstructionInput, StyleLanguage } from '../api/types.js';
import type { PostgresLocation } from '../state/location.js';
import type { PipelineIdentity } from '../state/pipeline.js';
import type { Manifest } from './schema.js';
import type { DRIFT_POLICIES } from './sections/style-list.js';
import type { HeaderRule } from './glossary-entries.js';
import type { DataPath, YamlSource } from './yaml-source.js';

export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

/** A style list of the manifest, read from the manifest or from its own file, defaults applied. */
export interface ResolvedStyleList {
  /** Key in `style_lists` (how targets refer to it). */
  key: string;
  /** Name on the service (`name`, or the key when not given). */
  name: string;
  language: StyleLanguage;
  drift: DriftPolicy;
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstructionInput[];
  /** Absolute path of the YAML file the list is written in. */
  file: string;
  /** Where the list's body sits in that file: [] for a file of its own, ['style_lists', key] inline. */
  yamlPath: Array<string | number>;
}

/** One language pair of a glossary of the manifest, with where its entries are written. */
export interface ResolvedDictionary {
  /** Base languages, lower-case (en, de). */
  source_lang: string;
  target_lang: string;
  /** Source term → target term, in the order written. */
  entries: Map<string, string>;
  /** Absolute path of the file the entries are written in (the manifest for inline entries). */
  file: string;
  /** csv/tsv: a file of its own; yaml: inline in the manifest at `yamlPath`. */
  format: 'csv' | 'tsv' | 'yaml';
  yamlPath: Array<string | number>;
  /** A file's first row: a header, an entry, or either as it reads (the glossary's `header`). */
  header: HeaderRule;
}

/** A glossary of the manifest (`glossaries.<key>`), its files read, defaults applied. */
export interface ResolvedGlossary {
  key: string;
  /** Name on the service (`name`, or the key). */
  name: string;
  drift: DriftPolicy;
  /** By pair, "en-de". */
  dictionaries: Record<string, ResolvedDictionary>;
}

export interface LoadedManifest {
  /** Absolute path of the manifest. */
  path: string;
  /** Absolute folder of the manifest (relative paths in it are relative to this). */
  dir: string;
  /** The manifest, defaults applied. */
  manifest: Manifest;
  styleLists: Record<string, ResolvedStyleList>;
  /** Glossaries by key (absent: none; manifests built by hand in tests). */
  glossaries?: Record<string, ResolvedGlossary>;
  /**
   * Absolute path of the SQLite state file; with a PostgreSQL state, a path in the local folder
   * (postgres.local_dir) whose folder holds the spool and the embedded service's jobs.
   */
  statePath: string;
  /** Set when `state:` is a PostgreSQL URL (several workers share it). */
  postgres?: PostgresLocation;
  /** The pipeline this manifest is (absent in manifests built by hand in tests). */
  pipeline?: PipelineIdentity;
}

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
