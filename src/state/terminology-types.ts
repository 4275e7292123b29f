// Style lists and glossaries as last applied to the service (src/styles reconciles against them).
// Part of the state interface (./types.ts).

/** What the reconciler last applied to the service for one style list of the manifest. */
export interface AppliedStyle {
  /** Key of the list in the manifest's `style_lists`. */
  key: string;
  style_id: string;
  name: string;
  language: string;
  /** The service's `version` right after our last change (drift: the remote version differs). */
  version: number;
  /** sha256 of the canonical JSON of what was applied. */
  hash: string;
  /** ISO 8601 time of the apply. */
  applied_at: string;
}

export interface StyleStateStore {
  getStyle(key: string): AppliedStyle | undefined;
  setStyle(rec: AppliedStyle): void;
  deleteStyle(key: string): void;
  allStyles(): AppliedStyle[];
}

/** What the reconciler last applied to the service for one glossary of the manifest. */
export interface AppliedGlossary {
  /** Key of the glossary in the manifest's `glossaries`. */
  key: string;
  glossary_id: string;
  name: string;
  /**
   * sha256 of each dictionary's entries as applied, by pair ("en-de"). The service keeps no version
   * of a glossary: drift is a remote hash that differs from this one.
   */
  hashes: Record<string, string>;
  /** ISO 8601 time of the apply. */
  applied_at: string;
}

export interface GlossaryStateStore {
  getGlossary(key: string): AppliedGlossary | undefined;
  setGlossary(rec: AppliedGlossary): void;
  deleteGlossary(key: string): void;
  allGlossaries(): AppliedGlossary[];
}
