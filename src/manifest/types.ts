import type { ConfiguredRules, CustomInstructionInput, StyleLanguage } from '../api/types.js';
import type { DRIFT_POLICIES, Manifest } from './schema.js';

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

export interface LoadedManifest {
  /** Absolute path of the manifest. */
  path: string;
  /** Absolute folder of the manifest (relative paths in it are relative to this). */
  dir: string;
  /** The manifest, defaults applied. */
  manifest: Manifest;
  styleLists: Record<string, ResolvedStyleList>;
  /** Absolute path of the SQLite state file. */
  statePath: string;
}
