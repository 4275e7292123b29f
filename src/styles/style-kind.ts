import { NotFoundError } from '../api/errors.js';
import type { StyleRuleList } from '../api/types.js';
import type { ResolvedStyleList } from '../manifest/load.js';
import type { AppliedStyle } from '../state/types.js';
import {
  contentHash,
  desiredContent,
  diffContent,
  remoteContent,
  type StyleChange,
  type StyleContent,
} from './content.js';
import type { ReconcileKind } from './reconciler.js';
import type { ListDecision, ReconcileArgs, StyleAction, StyleDrift } from './style-plan.js';

// Style lists for the generic reconciler (reconciler.ts): how a list is read on the service, how its
// content is compared with the YAML's and the state's, and which action or drift a difference is.

/** Style lists for the generic reconciler: the service's calls, their content and its comparison. */
export function styleKind(
  args: ReconcileArgs,
): ReconcileKind<
  ResolvedStyleList,
  AppliedStyle,
  StyleRuleList,
  StyleContent,
  StyleChange,
  StyleAction,
  StyleDrift
> {
  const { client, state } = args;
  return {
    noun: 'style list',
    desired: () => args.loaded.styleLists,
    appliedAll: () => state.allStyles(),
    appliedKey: (a) => a.key,
    appliedId: (a) => a.style_id,
    getApplied: (key) => state.getStyle(key),
    fetch: (id) => client.getStyleRules(id),
    listAll: async () => (await client.listAllStyleRules()) as StyleRuleList[],
    remoteId: (r) => r.style_id,
    sameName: (r, list) => r.name === list.name && r.language === list.language,
    fromListing: async (r) => {
      try {
        return await client.getStyleRules(r.style_id);
      } catch (err) {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }
    },
    desiredContent,
    remoteContent,
    diff: diffContent,
    changedSinceApplied: (applied, remote) => remote.version !== applied.version,
    desiredChangedSinceApplied: (applied, want) => contentHash(want) !== applied.hash,
    policyOf: (list) => list.drift,
    goneNote: (applied) => `style_id ${applied.style_id} was deleted on the service; creating the list again`,
    takeoverNote: (r) => `taking over the service's list with this name (style_id ${r.style_id})`,
    deleteAction: (key, applied, notes) => ({
      kind: 'delete',
      key,
      name: applied.name,
      language: applied.language,
      style_id: applied.style_id,
      changes: [],
      notes,
    }),
    createAction: (key, _list, want, notes) => ({
      kind: 'create',
      key,
      name: want.name,
      language: want.language,
      changes: diffContent({ ...want, configured_rules: {}, custom_instructions: [] }, want).filter(
        (c) => c.what !== 'name' && c.what !== 'language',
      ),
      notes,
    }),
    driftOf: (key, applied, remote, policy, changes, yamlChanged) => ({
      key,
      style_id: remote.style_id,
      policy,
      appliedVersion: applied.version,
      remoteVersion: remote.version,
      changes,
      yamlChanged,
    }),
    adoptAction: (key, list, remote, drift, notes) => ({
      kind: 'adopt',
      key,
      name: remote.name,
      language: remote.language,
      style_id: remote.style_id,
      changes: drift.changes,
      notes: [...notes, `writing the service's version ${remote.version} into ${list.file}`],
    }),
    overwriteNote: (applied, remote) =>
      `overwriting changes made on the service (version ${applied.version} → ${remote.version})`,
    changeAction: (key, _list, remote, have, want, changes, notes) => {
      if (changes.length === 0) return undefined;
      const replace = changes.some((c) => c.what === 'language');
      if (replace)
        notes.push(
          `the language changes (${have.language} → ${want.language}): a new list replaces the old one`,
        );
      else if (changes.some((c) => c.what === 'rule' && c.op === 'remove'))
        notes.push(
          'a rule was removed: all rules are replaced with PUT configured_rules (PATCH only merges)',
        );
      return {
        kind: replace ? 'replace' : 'update',
        key,
        name: want.name,
        language: want.language,
        style_id: remote.style_id,
        changes,
        notes,
      };
    },
  };
}

/**
 * The content a list has on the service once this run is done (undefined: deleted, or left alone
 * because of drift under policy fail).
 */
export function contentAfter(d: ListDecision): StyleContent | undefined {
  if (!d.desired) return undefined;
  if (d.action?.kind === 'adopt') return remoteContent(d.remote!);
  if (d.action) return desiredContent(d.desired);
  if (d.drift) return undefined;
  return d.remote ? remoteContent(d.remote) : undefined;
}
