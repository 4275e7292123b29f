import { NotFoundError, UploadMaybeAcceptedError } from '../api/errors.js';
import { GlossaryApi, type MultilingualGlossary } from '../api/glossaries.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ResolvedGlossary } from '../manifest/types.js';
import { ConfigError } from '../util/errors.js';
import {
  desiredGlossaryContent,
  glossaryHashes,
  sameHashes,
  type GlossaryContent,
} from './glossary-content.js';
import { toTsv } from '../manifest/glossary-entries.js';
import { adoptGlossaryIntoFiles } from './glossary-write.js';
import { applyDecisions, Reconciler } from './reconciler.js';
import { changedPairs, glossaryKind } from './glossary-kind.js';
import {
  GlossaryDriftError,
  type GlossaryDecision,
  type GlossaryPlan,
  type GlossaryReconcileArgs,
} from './glossary-plan.js';

// The glossary reconciler: desired (the YAML and its CSV/TSV files) vs remote (the service's v3
// glossaries) vs last applied (state: glossary_id and a hash per language pair), on the generic
// reconciler (reconciler.ts; glossary-kind.ts decides what each glossary needs). The service keeps no
// version of a glossary, so a remote hash that differs from the applied one is drift.

export { GlossaryDriftError, type GlossaryPlan } from './glossary-plan.js';

class GlossaryReconciler {
  private readonly api: GlossaryApi;
  private readonly logger: Logger;

  constructor(private readonly args: GlossaryReconcileArgs) {
    this.api = new GlossaryApi(args.client);
    this.logger = args.logger ?? silentLogger();
  }

  private get desiredAll(): Record<string, ResolvedGlossary> {
    return this.args.loaded.glossaries ?? {};
  }

  /** Refuse pairs the service does not offer, before anything is changed. */
  private async checkPairs(decisions: GlossaryDecision[]): Promise<void> {
    const wanted = decisions.flatMap((d) =>
      d.action && (d.action.kind === 'create' || d.action.kind === 'update')
        ? d.action.changes.filter((c) => c.op !== 'remove').map((c) => ({ key: d.key, pair: c.pair }))
        : [],
    );
    if (!wanted.length) return;
    let offered: Set<string>;
    try {
      offered = new Set(
        (await this.api.languagePairs()).map(
          (p) => `${p.source_lang.toLowerCase()}-${p.target_lang.toLowerCase()}`,
        ),
      );
    } catch (err) {
      if (err instanceof NotFoundError) return; // a service without the list: it answers the create itself
      throw err;
    }
    const bad = wanted.filter((w) => !offered.has(w.pair));
    if (bad.length) {
      const first = this.desiredAll[bad[0]!.key]!.dictionaries[bad[0]!.pair];
      throw new ConfigError(
        `the service offers no glossaries for ${bad.map((b) => `${b.pair} (glossary '${b.key}')`).join(', ')}; remove the pair or use another language pair`,
        first ? { file: first.file } : {},
      );
    }
  }

  private decisions: GlossaryDecision[] = [];
  private plan: GlossaryPlan | undefined;

  /** Decide every glossary's action; nothing is modified. */
  async prepare(): Promise<GlossaryPlan> {
    const reconciler = new Reconciler(glossaryKind(this.args, this.api), this.args.drift);
    // A key of a style list is not an unknown glossary: `styles apply --only` names both kinds.
    const keys = reconciler.keys(this.args.only, Object.keys(this.args.loaded.styleLists));
    const decisions = (this.decisions = await reconciler.decideAll(keys));
    const plan: GlossaryPlan = {
      actions: decisions.flatMap((d) => (d.action ? [d.action] : [])),
      drift: decisions.flatMap((d) => (d.drift ? [d.drift] : [])),
      glossaryIds: {},
      changedPairs: {},
    };
    for (const d of decisions) {
      if (d.desired && d.remote) plan.glossaryIds[d.key] = d.remote.glossary_id;
      const changed = changedPairs(d);
      if (changed.length) plan.changedPairs[d.key] = changed;
    }
    this.plan = plan;
    return plan;
  }

  /**
   * Make the service match the decisions of prepare(): refused when a glossary drifted under policy
   * fail, or with `blockDrifted` those glossaries are left alone (listed in `blocked`).
   */
  async apply(blockDrifted = false): Promise<GlossaryPlan> {
    const plan = this.plan!;
    const blocked = await applyDecisions(this.decisions, plan.drift, {
      blockDrifted,
      refuse: (failing) => new GlossaryDriftError(failing),
      ids: plan.glossaryIds,
      before: (toApply) => this.checkPairs(toApply),
      applyOne: (d) => this.applyDecision(d),
    });
    if (blocked) plan.blocked = blocked;
    return plan;
  }

  private record(key: string, g: { glossary_id: string; name: string }, content: GlossaryContent): void {
    this.args.state.setGlossary({
      key,
      glossary_id: g.glossary_id,
      name: g.name,
      hashes: glossaryHashes(content),
      applied_at: new Date().toISOString(),
    });
  }

  private async applyDecision(d: GlossaryDecision): Promise<string | undefined> {
    const a = d.action;
    const log = this.logger.child({ glossary: d.key });
    if (!a) {
      // Nothing to change on the service; keep the state in step (state lost, taken over by name).
      if (d.desired && d.remote && d.have && !d.drift) {
        const same =
          d.applied?.glossary_id === d.remote.glossary_id &&
          d.applied.name === d.remote.name &&
          sameHashes(d.applied.hashes, glossaryHashes(d.have));
        if (!same) this.record(d.key, d.remote, d.have);
      }
      return d.drift ? undefined : d.remote?.glossary_id;
    }
    switch (a.kind) {
      case 'delete': {
        if (d.remote) await this.api.delete(d.remote.glossary_id).catch(ignoreNotFound);
        this.args.state.deleteGlossary(d.key);
        log.info({ glossary_id: a.glossary_id }, 'deleted glossary (no longer in the manifest)');
        return undefined;
      }
      case 'create': {
        const want = desiredGlossaryContent(d.desired!);
        let created: MultilingualGlossary;
        try {
          created = await this.api.create(
            d.desired!.name,
            [...want].map(([pair, entries]) => ({ ...splitPair(pair), entries: toTsv(entries) })),
          );
        } catch (err) {
          if (err instanceof UploadMaybeAcceptedError)
            throw new Error(
              `glossary '${d.key}': ${err.message}. The next run takes over a glossary named "${d.desired!.name}" if the service made it.`,
            );
          throw err;
        }
        this.record(d.key, created, want);
        log.info({ glossary_id: created.glossary_id, notes: a.notes }, 'created glossary');
        return created.glossary_id;
      }
      case 'adopt': {
        await adoptGlossaryIntoFiles(this.args.loaded.path, d.desired!, d.have!);
        for (const [pair, dict] of Object.entries(d.desired!.dictionaries)) {
          const entries = d.have!.get(pair);
          if (entries) dict.entries = entries;
          else delete d.desired!.dictionaries[pair];
        }
        this.record(d.key, d.remote!, d.have!);
        log.info(
          { glossary_id: d.remote!.glossary_id },
          "adopted the service's entries into the glossary's files",
        );
        return d.remote!.glossary_id;
      }
      case 'update': {
        const id = d.remote!.glossary_id;
        const want = desiredGlossaryContent(d.desired!);
        if (a.rename) await this.api.rename(id, a.rename.to);
        for (const c of a.changes) {
          const langs = splitPair(c.pair);
          if (c.op === 'remove')
            await this.api.deleteDictionary(id, langs.source_lang, langs.target_lang).catch(ignoreNotFound);
          else await this.api.putDictionary(id, { ...langs, entries: toTsv(want.get(c.pair)!) });
        }
        this.record(d.key, { glossary_id: id, name: d.desired!.name }, want);
        log.info({ glossary_id: id, pairs: a.changes.map((c) => c.pair) }, 'updated glossary');
        return id;
      }
    }
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof NotFoundError)) throw err;
}

function splitPair(pair: string): { source_lang: string; target_lang: string } {
  const [source_lang, target_lang] = pair.split('-') as [string, string];
  return { source_lang, target_lang };
}

/** Decide what the glossaries need; `apply()` then makes the service match. Nothing is modified before it. */
export async function prepareGlossaries(
  args: Omit<GlossaryReconcileArgs, 'apply'>,
): Promise<{ plan: GlossaryPlan; apply: (blockDrifted?: boolean) => Promise<GlossaryPlan> }> {
  const r = new GlossaryReconciler({ ...args, apply: true });
  const plan = await r.prepare();
  return { plan, apply: (blockDrifted) => r.apply(blockDrifted) };
}

/**
 * Compare the manifest's glossaries with the service and the state; with `apply`, make the service
 * match (and record what was applied). Without it nothing is modified, remotely or in the state.
 * Throws GlossaryDriftError (before modifying anything) for glossaries changed elsewhere under policy fail.
 */
export async function reconcileGlossaries(args: GlossaryReconcileArgs): Promise<GlossaryPlan> {
  const p = await prepareGlossaries(args);
  return args.apply ? p.apply() : p.plan;
}
