// Contracts of the state store shared by the sync engine (src/sync) and the style reconciler
// (src/styles). The store itself (src/state/store.ts) implements them.

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
