// The one desired / applied / remote reconciler that style lists and glossaries share (style.md:
// terraform's plan as data). For each key of the manifest, plus each key applied before and since
// removed from it, it decides before anything is modified:
//   not desired any more                  -> delete
//   no remote (its id gone, none by name)  -> create (a list of the same name nobody owns is taken over)
//   remote changed since the last apply    -> drift: policy fail (left alone), adopt (the service's
//                                             content written into the YAML), overwrite (update)
//   desired differs from remote            -> update (or what the kind makes of it: replace, rename)
// and, when asked, applies the decisions in order, refusing (or, with blockDrifted, leaving alone)
// what drifted under policy fail. What differs between the two kinds (the service's calls, their
// content and how it is compared, how a change is carried out) is the ReconcileKind.
import { NotFoundError } from '../api/errors.js';
import type { DriftPolicy } from '../manifest/types.js';
import { didYouMean } from '../manifest/suggest.js';
import { ConfigError } from '../util/errors.js';

/** What one key needs, decided before anything is modified. */
export interface Decision<D, A, R, C, Action, Drift> {
  key: string;
  desired: D | undefined;
  applied: A | undefined;
  remote: R | undefined;
  /** The remote's content, when the kind read it. */
  have: C | undefined;
  action: Action | undefined;
  drift: Drift | undefined;
}

export interface DriftOf {
  key: string;
  policy: DriftPolicy;
}

/** The kind of resource reconciled: its desired and applied records, the service's calls, its content. */
export interface ReconcileKind<
  D,
  A,
  R,
  C,
  Change,
  Action extends { notes: string[] },
  Drift extends DriftOf,
> {
  /** "style list", "glossary": for messages. */
  noun: string;
  desired(): Record<string, D>;
  /** Keys recorded as applied. */
  appliedAll(): A[];
  appliedKey(a: A): string;
  appliedId(a: A): string;
  getApplied(key: string): A | undefined;
  /** The service's resource; NotFoundError when it is gone. */
  fetch(id: string): Promise<R>;
  /** Every resource on the service (summaries are enough for matching by name). */
  listAll(): Promise<R[]>;
  remoteId(r: R): string;
  /** Whether a listed resource is the one `desired` would create (same name, and language). */
  sameName(listed: R, desired: D): boolean;
  /** The full resource of a listed one. */
  fromListing(listed: R): Promise<R | undefined>;
  desiredContent(d: D): C;
  remoteContent(r: R): Promise<C> | C;
  diff(from: C, to: C): Change[];
  /** The service's resource changed since it was applied (by version, by content hash). */
  changedSinceApplied(applied: A, remote: R, have: C): boolean;
  /** The YAML changed since it was applied. */
  desiredChangedSinceApplied(applied: A, want: C): boolean;
  policyOf(d: D): DriftPolicy;
  /** The note of a create whose applied resource was deleted on the service. */
  goneNote(applied: A): string;
  /** The note of a resource taken over by name. */
  takeoverNote(remote: R): string;
  deleteAction(key: string, applied: A, notes: string[]): Action;
  createAction(key: string, d: D, want: C, notes: string[]): Action;
  driftOf(
    key: string,
    applied: A,
    remote: R,
    policy: DriftPolicy,
    changes: Change[],
    yamlChanged: boolean,
  ): Drift;
  adoptAction(key: string, d: D, remote: R, drift: Drift, notes: string[]): Action;
  /** The note of an update that overwrites what changed on the service. */
  overwriteNote(applied: A, remote: R): string;
  /** The action that makes the remote match (update, replace, rename); undefined when nothing differs. */
  changeAction(
    key: string,
    d: D,
    remote: R,
    have: C,
    want: C,
    changes: Change[],
    notes: string[],
  ): Action | undefined;
}

/** Decides, for each key, what makes the service match the manifest. Nothing is modified. */
export class Reconciler<D, A, R, C, Change, Action extends { notes: string[] }, Drift extends DriftOf> {
  private listed: R[] | undefined;
  /** Resources taken over by name in this run (two keys must not take the same one). */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly kind: ReconcileKind<D, A, R, C, Change, Action, Drift>,
    private readonly drift?: DriftPolicy,
  ) {}

  /** Keys to reconcile: the manifest's, plus those applied before and since removed from it. */
  keys(only: string[] | undefined, alsoKnown: readonly string[] = []): string[] {
    const desired = Object.keys(this.kind.desired());
    const applied = this.kind.appliedAll().map((a) => this.kind.appliedKey(a));
    const all = [...desired, ...applied.filter((k) => !desired.includes(k))];
    if (!only) return all;
    const unknown = only.filter((k) => !all.includes(k) && !alsoKnown.includes(k));
    if (unknown.length)
      throw new ConfigError(
        `unknown ${this.kind.noun} '${unknown[0]}'${didYouMean(unknown[0]!, all)}; the manifest defines: ${desired.join(', ') || 'none'}`,
      );
    return all.filter((k) => only.includes(k));
  }

  async decideAll(keys: string[]): Promise<Array<Decision<D, A, R, C, Action, Drift>>> {
    const out: Array<Decision<D, A, R, C, Action, Drift>> = [];
    for (const key of keys) out.push(await this.decide(key));
    return out;
  }

  private async fetch(id: string): Promise<R | undefined> {
    try {
      return await this.kind.fetch(id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The one resource on the service that `desired` would be and no other key owns (state lost, pulled, a lost answer). */
  private async findByName(desired: D): Promise<R | undefined> {
    this.listed ??= await this.kind.listAll();
    const owned = new Set([...this.kind.appliedAll().map((a) => this.kind.appliedId(a)), ...this.claimed]);
    const matches = this.listed.filter(
      (r) => this.kind.sameName(r, desired) && !owned.has(this.kind.remoteId(r)),
    );
    if (matches.length !== 1) return undefined;
    this.claimed.add(this.kind.remoteId(matches[0]!));
    return this.kind.fromListing(matches[0]!);
  }

  async decide(key: string): Promise<Decision<D, A, R, C, Action, Drift>> {
    const k = this.kind;
    const desired = k.desired()[key];
    const applied = k.getApplied(key);
    const d: Decision<D, A, R, C, Action, Drift> = {
      key,
      desired,
      applied,
      remote: undefined,
      have: undefined,
      action: undefined,
      drift: undefined,
    };
    if (!desired) {
      // Applied before, no longer in the manifest: delete it from the service.
      d.remote = await this.fetch(k.appliedId(applied!));
      d.action = k.deleteAction(key, applied!, [
        d.remote ? 'no longer in the manifest' : 'no longer in the manifest (already gone from the service)',
      ]);
      return d;
    }
    const want = k.desiredContent(desired);
    const notes: string[] = [];
    if (applied) {
      d.remote = await this.fetch(k.appliedId(applied));
      if (!d.remote) notes.push(k.goneNote(applied));
    } else {
      d.remote = await this.findByName(desired);
      if (d.remote) notes.push(k.takeoverNote(d.remote));
    }
    if (!d.remote) {
      d.action = k.createAction(key, desired, want, notes);
      return d;
    }
    const have = await k.remoteContent(d.remote);
    d.have = have;
    const changes = k.diff(have, want);
    if (applied && changes.length > 0 && k.changedSinceApplied(applied, d.remote, have)) {
      const policy = this.drift ?? k.policyOf(desired);
      d.drift = k.driftOf(
        key,
        applied,
        d.remote,
        policy,
        k.diff(want, have),
        k.desiredChangedSinceApplied(applied, want),
      );
      if (policy === 'fail') return d;
      if (policy === 'adopt') {
        d.action = k.adoptAction(key, desired, d.remote, d.drift, notes);
        return d;
      }
      notes.push(k.overwriteNote(applied, d.remote));
    }
    d.action = k.changeAction(key, desired, d.remote, have, want, changes, notes);
    return d;
  }
}

/**
 * Carries out decisions: drift under policy fail refuses the whole apply (`refuse`), or with
 * `blockDrifted` leaves those keys alone (returned as blocked); `applyOne` carries out one
 * decision and answers the id its key uses afterwards.
 */
export async function applyDecisions<Dec extends { key: string; desired: unknown }, Drift extends DriftOf>(
  decisions: readonly Dec[],
  drift: readonly Drift[],
  opts: {
    blockDrifted: boolean;
    refuse: (failing: Drift[]) => Error;
    ids: Record<string, string>;
    before?: (toApply: Dec[]) => Promise<void>;
    applyOne: (d: Dec) => Promise<string | undefined>;
  },
): Promise<Drift[] | undefined> {
  const failing = drift.filter((x) => x.policy === 'fail');
  if (failing.length && !opts.blockDrifted) throw opts.refuse(failing);
  const blocked = new Set(failing.map((x) => x.key));
  for (const key of blocked) delete opts.ids[key];
  const toApply = decisions.filter((d) => !blocked.has(d.key));
  await opts.before?.(toApply);
  for (const d of toApply) {
    const id = await opts.applyOne(d);
    if (id && d.desired) opts.ids[d.key] = id;
  }
  return failing.length ? failing : undefined;
}
