import type { GlossaryApi, MultilingualGlossary } from '../api/glossaries.js';
import type { ResolvedGlossary } from '../manifest/types.js';
import type { AppliedGlossary } from '../state/types.js';
import {
  desiredGlossaryContent,
  diffGlossary,
  glossaryHashes,
  sameHashes,
  type DictionaryChange,
  type GlossaryContent,
} from './glossary-content.js';
import { fromTsv } from '../manifest/glossary-entries.js';
import type { ReconcileKind } from './reconciler.js';
import type {
  GlossaryAction,
  GlossaryDecision,
  GlossaryDrift,
  GlossaryReconcileArgs,
} from './glossary-plan.js';

// Glossaries for the generic reconciler (reconciler.ts): how a glossary is read on the service, how
// its entries are compared with the files' and the state's, and which action or drift a difference is.

/** Glossaries for the generic reconciler: the service's calls, their entries and their comparison. */
export function glossaryKind(
  args: GlossaryReconcileArgs,
  api: GlossaryApi,
): ReconcileKind<
  ResolvedGlossary,
  AppliedGlossary,
  MultilingualGlossary,
  GlossaryContent,
  DictionaryChange,
  GlossaryAction,
  GlossaryDrift
> {
  const { state } = args;
  return {
    noun: 'glossary',
    desired: () => args.loaded.glossaries ?? {},
    appliedAll: () => state.allGlossaries(),
    appliedKey: (a) => a.key,
    appliedId: (a) => a.glossary_id,
    getApplied: (key) => state.getGlossary(key),
    fetch: (id) => api.get(id),
    listAll: () => api.list(),
    remoteId: (g) => g.glossary_id,
    sameName: (g, desired) => g.name === desired.name,
    fromListing: (g) => Promise.resolve(g),
    desiredContent: desiredGlossaryContent,
    async remoteContent(g) {
      const out: GlossaryContent = new Map();
      for (const d of g.dictionaries ?? []) {
        const [s, t] = [d.source_lang.toLowerCase(), d.target_lang.toLowerCase()];
        out.set(`${s}-${t}`, fromTsv(await api.entries(g.glossary_id, s, t)));
      }
      return out;
    },
    diff: diffGlossary,
    changedSinceApplied: (applied, _remote, have) => !sameHashes(glossaryHashes(have), applied.hashes),
    desiredChangedSinceApplied: (applied, want) => !sameHashes(glossaryHashes(want), applied.hashes),
    policyOf: (desired) => desired.drift,
    goneNote: (applied) =>
      `glossary_id ${applied.glossary_id} was deleted on the service; creating the glossary again`,
    takeoverNote: (g) => `taking over the service's glossary with this name (glossary_id ${g.glossary_id})`,
    deleteAction: (key, applied, notes) => ({
      kind: 'delete',
      key,
      name: applied.name,
      glossary_id: applied.glossary_id,
      changes: [],
      notes,
    }),
    createAction: (key, desired, want, notes) => ({
      kind: 'create',
      key,
      name: desired.name,
      changes: diffGlossary(new Map(), want),
      notes,
    }),
    driftOf: (key, _applied, remote, policy, changes, yamlChanged) => ({
      key,
      glossary_id: remote.glossary_id,
      policy,
      changes,
      yamlChanged,
    }),
    adoptAction: (key, desired, remote, drift, notes) => ({
      kind: 'adopt',
      key,
      name: desired.name,
      glossary_id: remote.glossary_id,
      changes: drift.changes,
      notes: [...notes, "writing the service's entries into the glossary's files"],
    }),
    overwriteNote: () => 'overwriting entries changed on the service',
    changeAction: (key, desired, remote, _have, _want, changes, notes) => {
      const rename = remote.name !== desired.name ? { from: remote.name, to: desired.name } : undefined;
      if (changes.length === 0 && !rename) return undefined;
      return {
        kind: 'update',
        key,
        name: desired.name,
        glossary_id: remote.glossary_id,
        changes,
        ...(rename ? { rename } : {}),
        notes,
      };
    },
  };
}

/** Pairs whose entries differ after this run from what was last applied (their outputs are stale). */
export function changedPairs(d: GlossaryDecision): string[] {
  if (!d.desired || !d.applied) return [];
  let after: GlossaryContent | undefined;
  if (d.action?.kind === 'adopt') after = d.have;
  else if (d.action) after = desiredGlossaryContent(d.desired);
  else if (!d.drift) after = d.have;
  if (!after) return [];
  const hashes = glossaryHashes(after);
  return Object.keys(hashes).filter(
    (p) => d.applied!.hashes[p] !== undefined && d.applied!.hashes[p] !== hashes[p],
  );
}
