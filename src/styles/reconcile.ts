import type { ServiceClient } from '../api/client.js';
import { NotFoundError, ServiceError } from '../api/errors.js';
import type { ConfiguredRules, CustomInstruction, StyleRuleList } from '../api/types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { LoadedManifest, ResolvedStyleList } from '../manifest/load.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { AppliedStyle, StyleStateStore } from '../state/types.js';
import {
  contentHash,
  describeChange,
  desiredContent,
  diffContent,
  remoteContent,
  sameInstruction,
  type StyleChange,
  type StyleContent,
} from './content.js';
import { adoptIntoYaml } from './yaml-write.js';
import { applyDecisions, Reconciler, type Decision, type ReconcileKind } from './reconciler.js';

// The style list reconciler: desired (the YAML) vs remote (the service) vs last applied (state:
// style_id, version, hash), on the generic reconciler (reconciler.ts). It plans, and when asked
// applies, the requests that make the service's lists match the YAML, and notices lists changed
// elsewhere by their version (drift).

export type StyleActionKind = 'create' | 'update' | 'replace' | 'delete' | 'adopt';

export interface StyleAction {
  kind: StyleActionKind;
  key: string;
  name: string;
  language: string;
  /** The existing list on the service (update, replace, delete, adopt). */
  style_id?: string;
  /** From the service's content to the YAML's (adopt: from the YAML's to the service's). */
  changes: StyleChange[];
  /** Why and how, for people ("rule removed: PUT configured_rules", "deleted on the service"). */
  notes: string[];
}

export interface StyleDrift {
  key: string;
  style_id: string;
  policy: DriftPolicy;
  appliedVersion: number;
  remoteVersion: number;
  /** What the service has that the YAML has not (from the YAML's content to the service's). */
  changes: StyleChange[];
  /** The YAML changed too since the last apply: the changes mix both sides. */
  yamlChanged: boolean;
}

export interface StylePlan {
  actions: StyleAction[];
  drift: StyleDrift[];
  /** List key → style_id to send with uploads (lists still to be created in a plan: absent). */
  styleIds: Record<string, string>;
  /** Lists whose content changed (or would change) in this run: outputs made with them are stale. */
  changedKeys: string[];
  /**
   * With `blockDrifted`: lists that drifted under policy fail, left as they are on the service; the
   * targets that use them get no translation this run (the rest go on).
   */
  blocked?: StyleDrift[];
}

export const ACTION_SYMBOLS: Record<StyleActionKind, string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  adopt: '<',
};

/** Drift under policy `fail`: someone changed lists on the service; nothing was modified. */
export class DriftError extends Error {
  constructor(readonly drift: StyleDrift[]) {
    super(
      [
        `style list${drift.length > 1 ? 's' : ''} changed on the service since locsync last applied ${drift.length > 1 ? 'them' : 'it'} (drift policy: fail); nothing was changed:`,
        ...drift.flatMap((d) => [
          `  ${driftHeadline(d)}`,
          ...d.changes.map((c) => `      ${describeChange(c)}`),
        ]),
        "Run again with --drift overwrite (make the service match the YAML) or --drift adopt (write the service's state into the YAML), set the list's drift policy, or edit the YAML to match.",
      ].join('\n'),
    );
    this.name = 'DriftError';
  }
}

export function driftHeadline(d: StyleDrift): string {
  const side = d.yamlChanged ? ' (the YAML changed too: service vs YAML)' : '';
  return `${d.key}: version ${d.appliedVersion} → ${d.remoteVersion} on the service (style_id ${d.style_id}, policy ${d.policy})${side}`;
}

export interface ReconcileArgs {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: StyleStateStore;
  apply: boolean;
  /** Only these list keys. */
  only?: string[];
  /** A one-off drift policy for this run, instead of each list's own. */
  drift?: DriftPolicy;
  /**
   * Lists drifted under policy fail are left alone (listed in `blocked`) instead of stopping the
   * whole apply (DriftError): a sync translates what does not use them.
   */
  blockDrifted?: boolean;
  logger?: Logger;
}

/** What one list needs, decided before anything is modified. */
type ListDecision = Decision<
  ResolvedStyleList,
  AppliedStyle,
  StyleRuleList,
  StyleContent,
  StyleAction,
  StyleDrift
>;

/** Style lists for the generic reconciler: the service's calls, their content and its comparison. */
function styleKind(
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

/** Status codes of a service without PUT /v3/style_rules/{id}/configured_rules. */
const UNSUPPORTED = new Set([404, 405, 501]);

class StyleReconciler {
  private readonly logger: Logger;

  constructor(private readonly args: ReconcileArgs) {
    this.logger = args.logger ?? silentLogger();
  }

  private get client(): ServiceClient {
    return this.args.client;
  }

  async run(): Promise<StylePlan> {
    const reconciler = new Reconciler(styleKind(this.args), this.args.drift);
    const decisions = await reconciler.decideAll(reconciler.keys(this.args.only));
    const plan: StylePlan = {
      actions: decisions.flatMap((d) => (d.action ? [d.action] : [])),
      drift: decisions.flatMap((d) => (d.drift ? [d.drift] : [])),
      styleIds: {},
      changedKeys: [],
    };
    for (const d of decisions) {
      if (d.desired && d.remote && d.action?.kind !== 'replace') plan.styleIds[d.key] = d.remote.style_id;
      const after = contentAfter(d);
      if (d.applied && after && contentHash(after) !== d.applied.hash) plan.changedKeys.push(d.key);
    }
    if (!this.args.apply) return plan;
    const blocked = await applyDecisions(decisions, plan.drift, {
      blockDrifted: this.args.blockDrifted ?? false,
      refuse: (failing) => new DriftError(failing),
      ids: plan.styleIds,
      applyOne: (d) => this.applyDecision(d),
    });
    if (blocked) plan.blocked = blocked;
    return plan;
  }

  private record(key: string, list: StyleRuleList, content: StyleContent): void {
    this.args.state.setStyle({
      key,
      style_id: list.style_id,
      name: list.name,
      language: list.language,
      version: list.version,
      hash: contentHash(content),
      applied_at: new Date().toISOString(),
    });
  }

  /** Apply one decision; the style_id the key uses afterwards. */
  private async applyDecision(d: ListDecision): Promise<string | undefined> {
    const a = d.action;
    if (!a) {
      // Nothing to change on the service; keep the state in step (first run after state loss, drift back to equal).
      if (d.desired && d.remote) {
        const content = remoteContent(d.remote);
        const same =
          d.applied &&
          d.applied.style_id === d.remote.style_id &&
          d.applied.version === d.remote.version &&
          d.applied.hash === contentHash(content) &&
          d.applied.name === d.remote.name;
        if (!same) this.record(d.key, d.remote, content);
      }
      return d.remote?.style_id;
    }
    const log = this.logger.child({ style_list: d.key });
    switch (a.kind) {
      case 'delete': {
        if (d.remote) await this.deleteList(d.remote.style_id);
        this.args.state.deleteStyle(d.key);
        log.info({ style_id: a.style_id }, 'deleted style list (no longer in the manifest)');
        return undefined;
      }
      case 'create': {
        const want = desiredContent(d.desired!);
        const created = await this.create(want);
        this.record(d.key, created, want);
        log.info({ style_id: created.style_id, notes: a.notes }, 'created style list');
        return created.style_id;
      }
      case 'adopt': {
        const remote = d.remote!;
        const content = remoteContent(remote);
        await adoptIntoYaml(d.desired!, remote);
        Object.assign(d.desired!, {
          name: content.name,
          language: content.language,
          configured_rules: content.configured_rules,
          custom_instructions: content.custom_instructions,
        });
        this.record(d.key, remote, content);
        log.info(
          { style_id: remote.style_id, file: d.desired!.file },
          'adopted the service state into the YAML',
        );
        return remote.style_id;
      }
      case 'replace':
        return this.replace(d, a.notes);
      case 'update':
        return this.update(d);
    }
  }

  private create(want: StyleContent): Promise<StyleRuleList> {
    return this.client.createStyleRules({
      name: want.name,
      language: want.language,
      configured_rules: want.configured_rules,
      custom_instructions: want.custom_instructions,
    });
  }

  private async deleteList(id: string): Promise<void> {
    try {
      await this.client.deleteStyleRules(id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  /** Create a new list with the YAML's content, use it, delete the old one. */
  private async replace(d: ListDecision, notes: string[]): Promise<string> {
    const want = desiredContent(d.desired!);
    const created = await this.create(want);
    this.record(d.key, created, want);
    await this.deleteList(d.remote!.style_id);
    this.logger.warn(
      { style_list: d.key, old_style_id: d.remote!.style_id, style_id: created.style_id, notes },
      'replaced style list: a new list was created and the old one deleted',
    );
    return created.style_id;
  }

  private async update(d: ListDecision): Promise<string> {
    const remote = d.remote!;
    const id = remote.style_id;
    const want = desiredContent(d.desired!);
    const have = remoteContent(remote);
    const log = this.logger.child({ style_list: d.key, style_id: id });

    // Name and rules.
    const rulesRemoved = diffContent(have, want).some((c) => c.what === 'rule' && c.op === 'remove');
    const patchRules = rulesRemoved ? undefined : changedRules(have.configured_rules, want.configured_rules);
    if (rulesRemoved) {
      try {
        await this.client.putConfiguredRules(id, want.configured_rules);
      } catch (err) {
        if (err instanceof ServiceError && err.status !== undefined && UNSUPPORTED.has(err.status)) {
          // Reported as what it became: a replacement.
          const note =
            'the service has no PUT configured_rules and PATCH cannot remove a rule: a new list replaces the old one';
          d.action!.kind = 'replace';
          d.action!.notes = [...d.action!.notes.filter((n) => !n.includes('PUT configured_rules')), note];
          return this.replace(d, [note]);
        }
        throw err;
      }
    }
    if (have.name !== want.name || patchRules) {
      await this.client.patchStyleRules(id, {
        ...(have.name !== want.name ? { name: want.name } : {}),
        ...(patchRules ? { configured_rules: patchRules } : {}),
      });
    }

    // Custom instructions, matched by label: deletions first (the 200 limit), then replacements, additions.
    const wanted = new Map(want.custom_instructions.map((i) => [i.label, i]));
    const kept = new Set<string>();
    const replaceList: Array<[CustomInstruction, (typeof want.custom_instructions)[number]]> = [];
    for (const i of remote.custom_instructions ?? []) {
      const w = wanted.get(i.label);
      if (!w || kept.has(i.label)) {
        await this.client.deleteCustomInstruction(id, i.id);
        continue;
      }
      kept.add(i.label);
      if (!sameInstruction(i, w)) replaceList.push([i, w]);
    }
    for (const [i, w] of replaceList) await this.client.replaceCustomInstruction(id, i.id, w);
    for (const w of want.custom_instructions)
      if (!kept.has(w.label)) await this.client.addCustomInstruction(id, w);

    const after = await this.client.getStyleRules(id);
    const left = diffContent(remoteContent(after), want);
    if (left.length) {
      throw new Error(
        `style list '${d.key}' (style_id ${id}) still differs from the YAML after the update:\n${left.map((c) => `  ${describeChange(c)}`).join('\n')}`,
      );
    }
    this.record(d.key, after, want);
    log.info({ version: after.version, changes: d.action!.changes.length }, 'updated style list');
    return id;
  }
}

/**
 * The content a list has on the service once this run is done (undefined: deleted, or left alone
 * because of drift under policy fail).
 */
function contentAfter(d: ListDecision): StyleContent | undefined {
  if (!d.desired) return undefined;
  if (d.action?.kind === 'adopt') return remoteContent(d.remote!);
  if (d.action) return desiredContent(d.desired);
  if (d.drift) return undefined;
  return d.remote ? remoteContent(d.remote) : undefined;
}

/** The rules to PATCH (added or changed) when none was removed; undefined when there are none. */
function changedRules(have: ConfiguredRules, want: ConfiguredRules): ConfiguredRules | undefined {
  const out: ConfiguredRules = {};
  let any = false;
  for (const [cat, rules] of Object.entries(want) as Array<[keyof ConfiguredRules, Record<string, string>]>) {
    for (const [rule, option] of Object.entries(rules)) {
      if (have[cat]?.[rule] !== option) {
        (out[cat] ??= {})[rule] = option;
        any = true;
      }
    }
  }
  return any ? out : undefined;
}

/**
 * Compare the manifest's style lists with the service and the state; with `apply`, make the service
 * match (and record what was applied). Without it nothing is modified, remotely or in the state.
 * Throws DriftError (before modifying anything) for lists changed elsewhere under policy `fail`.
 */
export function reconcileStyles(args: ReconcileArgs): Promise<StylePlan> {
  return new StyleReconciler(args).run();
}
