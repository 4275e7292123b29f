import type { ServiceClient } from '../api/client.js';
import { NotFoundError, ServiceError } from '../api/errors.js';
import type { ConfiguredRules, CustomInstruction, StyleRuleList } from '../api/types.js';
import { silentLogger, type Logger } from '../log/logger.js';
import {
  contentHash,
  describeChange,
  desiredContent,
  diffContent,
  remoteContent,
  sameInstruction,
  type StyleContent,
} from './content.js';
import { adoptIntoYaml } from './yaml-write.js';
import { applyDecisions, Reconciler } from './reconciler.js';
import { contentAfter, styleKind } from './style-kind.js';
import { DriftError, type ListDecision, type ReconcileArgs, type StylePlan } from './style-plan.js';

// The style list reconciler: desired (the YAML) vs remote (the service) vs last applied (state:
// style_id, version, hash), on the generic reconciler (reconciler.ts). It plans (style-kind.ts
// decides what each list needs), and when asked applies, the requests that make the service's lists
// match the YAML, and notices lists changed elsewhere by their version (drift).

export { DriftError, type ReconcileArgs, type StylePlan } from './style-plan.js';

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
