import type { ServiceClient } from '../api/client.js';
import { NotFoundError, UploadMaybeAcceptedError } from '../api/errors.js';
import { GlossaryApi, type MultilingualGlossary } from '../api/glossaries.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { LoadedManifest, ResolvedGlossary } from '../manifest/types.js';
import { didYouMean } from '../manifest/suggest.js';
import type { DriftPolicy } from '../manifest/types.js';
import type { AppliedGlossary, GlossaryStateStore } from '../state/types.js';
import { ConfigError } from '../util/errors.js';
import {
  desiredGlossaryContent,
  diffGlossary,
  glossaryHashes,
  sameHashes,
  type DictionaryChange,
  type GlossaryContent,
} from './glossary-content.js';
import { diffCounts, fromTsv, toTsv } from '../manifest/glossary-entries.js';
import { adoptGlossaryIntoFiles } from './glossary-write.js';

// The glossary reconciler: desired (the YAML and its CSV/TSV files) vs remote (the service's v3
// glossaries) vs last applied (state: glossary_id and a hash per language pair). The service keeps
// no version of a glossary, so a remote hash that differs from the applied one is drift.

export type GlossaryActionKind = 'create' | 'update' | 'delete' | 'adopt';

export interface GlossaryAction {
  kind: GlossaryActionKind;
  key: string;
  name: string;
  /** The existing glossary on the service (update, delete, adopt). */
  glossary_id?: string;
  /** From the service's content to the YAML's (adopt: from the YAML's to the service's). */
  changes: DictionaryChange[];
  /** A new name (update). */
  rename?: { from: string; to: string };
  notes: string[];
}

export interface GlossaryDrift {
  key: string;
  glossary_id: string;
  policy: DriftPolicy;
  /** What the service has that the YAML has not (from the YAML's content to the service's). */
  changes: DictionaryChange[];
  /** The YAML changed too since the last apply. */
  yamlChanged: boolean;
}

export interface GlossaryPlan {
  actions: GlossaryAction[];
  drift: GlossaryDrift[];
  /** Glossary key → glossary_id to send with uploads (glossaries still to be created: absent). */
  glossaryIds: Record<string, string>;
  /** Glossary key → the pairs whose entries change (or would change) in this run: their outputs are stale. */
  changedPairs: Record<string, string[]>;
  /** Applied with `blockDrifted`: glossaries drifted under policy fail, left alone (their targets wait). */
  blocked?: GlossaryDrift[];
}

export const GLOSSARY_SYMBOLS: Record<GlossaryActionKind, string> = {
  create: '+',
  update: '~',
  delete: '-',
  adopt: '<',
};

export interface GlossaryReconcileArgs {
  loaded: LoadedManifest;
  client: ServiceClient;
  state: GlossaryStateStore;
  apply: boolean;
  /** Only these glossary keys. */
  only?: string[];
  /** A one-off drift policy for this run, instead of each glossary's own. */
  drift?: DriftPolicy;
  logger?: Logger;
}

interface Decision {
  key: string;
  desired: ResolvedGlossary | undefined;
  applied: AppliedGlossary | undefined;
  remote: MultilingualGlossary | undefined;
  have: GlossaryContent | undefined;
  action: GlossaryAction | undefined;
  drift: GlossaryDrift | undefined;
}

class GlossaryReconciler {
  private readonly api: GlossaryApi;
  private readonly logger: Logger;
  private listed: MultilingualGlossary[] | undefined;
  private readonly claimed = new Set<string>();

  constructor(private readonly args: GlossaryReconcileArgs) {
    this.api = new GlossaryApi(args.client);
    this.logger = args.logger ?? silentLogger();
  }

  private get desiredAll(): Record<string, ResolvedGlossary> {
    return this.args.loaded.glossaries ?? {};
  }

  private keys(): string[] {
    const desired = Object.keys(this.desiredAll);
    const applied = this.args.state.allGlossaries().map((g) => g.key);
    const all = [...desired, ...applied.filter((k) => !desired.includes(k))];
    const only = this.args.only;
    if (!only) return all;
    return all.filter((k) => only.includes(k));
  }

  private async getRemote(id: string): Promise<MultilingualGlossary | undefined> {
    try {
      return await this.api.get(id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** A glossary on the service with the YAML's name that no other key owns (state lost, pulled, or a create whose answer was lost). */
  private async findByName(name: string): Promise<MultilingualGlossary | undefined> {
    this.listed ??= await this.api.list();
    const owned = new Set([...this.args.state.allGlossaries().map((g) => g.glossary_id), ...this.claimed]);
    const matches = this.listed.filter((g) => g.name === name && !owned.has(g.glossary_id));
    if (matches.length !== 1) return undefined;
    this.claimed.add(matches[0]!.glossary_id);
    return matches[0];
  }

  private async contentOf(g: MultilingualGlossary): Promise<GlossaryContent> {
    const out: GlossaryContent = new Map();
    for (const d of g.dictionaries ?? []) {
      const [s, t] = [d.source_lang.toLowerCase(), d.target_lang.toLowerCase()];
      out.set(`${s}-${t}`, fromTsv(await this.api.entries(g.glossary_id, s, t)));
    }
    return out;
  }

  private async decide(key: string): Promise<Decision> {
    const desired = this.desiredAll[key];
    const applied = this.args.state.getGlossary(key);
    const d: Decision = {
      key,
      desired,
      applied,
      remote: undefined,
      have: undefined,
      action: undefined,
      drift: undefined,
    };

    if (!desired) {
      d.remote = await this.getRemote(applied!.glossary_id);
      d.action = {
        kind: 'delete',
        key,
        name: applied!.name,
        glossary_id: applied!.glossary_id,
        changes: [],
        notes: [
          d.remote
            ? 'no longer in the manifest'
            : 'no longer in the manifest (already gone from the service)',
        ],
      };
      return d;
    }

    const want = desiredGlossaryContent(desired);
    const notes: string[] = [];
    if (applied) {
      d.remote = await this.getRemote(applied.glossary_id);
      if (!d.remote)
        notes.push(
          `glossary_id ${applied.glossary_id} was deleted on the service; creating the glossary again`,
        );
    } else {
      d.remote = await this.findByName(desired.name);
      if (d.remote)
        notes.push(`taking over the service's glossary with this name (glossary_id ${d.remote.glossary_id})`);
    }
    if (!d.remote) {
      d.action = { kind: 'create', key, name: desired.name, changes: diffGlossary(new Map(), want), notes };
      return d;
    }

    d.have = await this.contentOf(d.remote);
    const changes = diffGlossary(d.have, want);
    const policy = this.args.drift ?? desired.drift;
    if (applied && changes.length > 0 && !sameHashes(glossaryHashes(d.have), applied.hashes)) {
      d.drift = {
        key,
        glossary_id: d.remote.glossary_id,
        policy,
        changes: diffGlossary(want, d.have),
        yamlChanged: !sameHashes(glossaryHashes(want), applied.hashes),
      };
      if (policy === 'fail') return d;
      if (policy === 'adopt') {
        d.action = {
          kind: 'adopt',
          key,
          name: desired.name,
          glossary_id: d.remote.glossary_id,
          changes: d.drift.changes,
          notes: [...notes, "writing the service's entries into the glossary's files"],
        };
        return d;
      }
      notes.push('overwriting entries changed on the service');
    }
    const rename = d.remote.name !== desired.name ? { from: d.remote.name, to: desired.name } : undefined;
    if (changes.length === 0 && !rename) return d;
    d.action = {
      kind: 'update',
      key,
      name: desired.name,
      glossary_id: d.remote.glossary_id,
      changes,
      ...(rename ? { rename } : {}),
      notes,
    };
    return d;
  }

  /** Refuse pairs the service does not offer, before anything is changed. */
  private async checkPairs(decisions: Decision[]): Promise<void> {
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

  private decisions: Decision[] = [];
  private plan: GlossaryPlan | undefined;

  /** Decide every glossary's action; nothing is modified. */
  async prepare(): Promise<GlossaryPlan> {
    const only = this.args.only;
    if (only) {
      const known = [...Object.keys(this.desiredAll), ...this.args.state.allGlossaries().map((g) => g.key)];
      const unknown = only.filter(
        (k) => !known.includes(k) && !Object.hasOwn(this.args.loaded.styleLists, k),
      );
      if (unknown.length)
        throw new ConfigError(
          `unknown glossary '${unknown[0]}'${didYouMean(unknown[0]!, known)}; the manifest defines: ${Object.keys(this.desiredAll).join(', ') || 'none'}`,
        );
    }
    const decisions = this.decisions;
    for (const key of this.keys()) decisions.push(await this.decide(key));
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
    const failing = plan.drift.filter((x) => x.policy === 'fail');
    if (failing.length && !blockDrifted) throw new GlossaryDriftError(failing);
    const blocked = new Set(failing.map((x) => x.key));
    if (failing.length) plan.blocked = failing;
    for (const key of blocked) delete plan.glossaryIds[key];
    const decisions = this.decisions.filter((d) => !blocked.has(d.key));
    await this.checkPairs(decisions);
    for (const d of decisions) {
      const id = await this.applyDecision(d);
      if (id && d.desired) plan.glossaryIds[d.key] = id;
    }
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

  private async applyDecision(d: Decision): Promise<string | undefined> {
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

/** Pairs whose entries differ after this run from what was last applied (their outputs are stale). */
function changedPairs(d: Decision): string[] {
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

/** Drift under policy `fail`: someone changed glossaries on the service; nothing was modified. */
export class GlossaryDriftError extends Error {
  constructor(readonly drift: GlossaryDrift[]) {
    super(
      [
        `glossar${drift.length > 1 ? 'ies' : 'y'} changed on the service since locsync last applied ${drift.length > 1 ? 'them' : 'it'} (drift policy: fail); nothing was changed:`,
        ...drift.flatMap((d) => [
          `  ${glossaryDriftHeadline(d)}`,
          ...d.changes.flatMap((c) => dictionaryChangeLines(c, '      ')),
        ]),
        "Run again with --drift overwrite (make the service match the YAML) or --drift adopt (write the service's entries into the files), set the glossary's drift policy, or edit the files to match.",
      ].join('\n'),
    );
    this.name = 'GlossaryDriftError';
  }
}

export function glossaryDriftHeadline(d: GlossaryDrift): string {
  const side = d.yamlChanged ? ' (the YAML changed too: service vs YAML)' : '';
  return `${d.key}: entries changed on the service (glossary_id ${d.glossary_id}, policy ${d.policy})${side}`;
}

/** At most this many entries of a dictionary change are listed (the counts are always shown). */
const MAX_ENTRY_LINES = 10;

/** "~ en-de: 2 added, 1 changed" and the entries themselves, for people. */
export function dictionaryChangeLines(c: DictionaryChange, indent: string): string[] {
  const sym = c.op === 'add' ? '+' : c.op === 'remove' ? '-' : '~';
  const what =
    c.op === 'add' ? 'dictionary added' : c.op === 'remove' ? 'dictionary removed' : 'dictionary replaced';
  const lines = [`${indent}${sym} ${c.pair}: ${what} (${diffCounts(c.diff)})`];
  const entries = [
    ...c.diff.added.map(([s, t]) => `+ ${s} → ${t}`),
    ...c.diff.changed.map(([s, f, t]) => `~ ${s}: ${f} → ${t}`),
    ...c.diff.removed.map(([s, t]) => `- ${s} → ${t}`),
  ];
  for (const e of entries.slice(0, MAX_ENTRY_LINES)) lines.push(`${indent}    ${e}`);
  if (entries.length > MAX_ENTRY_LINES)
    lines.push(`${indent}    ... and ${entries.length - MAX_ENTRY_LINES} more`);
  return lines;
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
