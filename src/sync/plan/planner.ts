import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { Mapping } from '../../manifest/sections/mapping.js';
import type { LoadedManifest } from '../../manifest/types.js';
import type { SyncState } from '../../state/types.js';
import type { SyncEvents } from '../events.js';
import { waitingWording } from '../imported-wording.js';
import { PlanBuilder } from './builder.js';
import { outputGivenUp } from './decide.js';
import { OutputClaims } from './claims.js';
import type { PlanContext } from './context.js';
import { ManifestFolders } from './folders.js';
import { planMapping } from './inventory.js';
import { planPath } from './plan-path.js';
import { OutputIndex } from './output-index.js';
import { planRemovals } from './removals.js';
import { parseRetranslate } from './retranslate.js';
import { TargetSettings, type PlanStyles } from './settings.js';
import type { OutputRef, Plan, PlanInputs } from './types.js';

// The planner: sources and state in, a Plan out. One planner serves a whole run (sync, plan) or a
// watch session: it keeps who claims which output, and the ledger's view of the outputs, which the
// run keeps current as jobs finish. What is busy (work in flight) is an input of each call: the run
// loop passes the executor's view; a plan made before anything runs has nothing busy.

export interface PlannerOptions {
  /** Mapping names to plan (default: all). */
  only?: string[];
  /** `--retranslate`: stale (style and settings), style, settings or all (billed). */
  retranslate?: string;
  /** `--retry-failed-qa`: outputs that failed a hard check are translated again (billed). */
  retryFailedQa?: boolean;
}

/** The work in flight a plan is made beside (outputs busy now are decided after their work). */
export interface WorkInFlight {
  /** Whether an output has work scheduled or running. */
  busy(output: string): boolean;
  /** Whether no work is in flight at all. */
  idle(): boolean;
  /**
   * Whether a copy of this output failed its check in this run (its bytes are not what its job
   * wrote): it is no reuse donor for the rest of the run, so a reuse falls back once to the
   * ordinary decision instead of being planned, and failing, again.
   */
  refusedDonor?(output: string): boolean;
}

/** Nothing in flight: a plan made before anything of the run is carried out. */
export const NOTHING_IN_FLIGHT: Required<WorkInFlight> = {
  busy: () => false,
  idle: () => true,
  refusedDonor: () => false,
};

/** A plan with the units whose output had work in flight (decided again once it is finished). */
export interface PlanOutcome {
  plan: Plan;
  deferred: OutputRef[];
}

export class Planner {
  private styles: PlanStyles = { styleIds: {}, pendingChanges: [] };

  private constructor(
    private readonly ctx: PlanContext,
    private readonly opts: PlannerOptions,
  ) {}

  static async open(args: {
    loaded: LoadedManifest;
    state: SyncState;
    logger: Logger;
    events: SyncEvents;
    options?: PlannerOptions;
  }): Promise<Planner> {
    const { loaded, state } = args;
    let settings = await TargetSettings.load(loaded, state, { styleIds: {}, pendingChanges: [] });
    const index = await OutputIndex.load(state.jobs);
    const ctx: PlanContext = {
      loaded,
      state,
      logger: args.logger,
      events: args.events,
      folders: new ManifestFolders(loaded),
      index,
      claims: new OutputClaims(() => settings),
      get settings() {
        return settings;
      },
      set settings(s: TargetSettings) {
        settings = s;
      },
      retranslate: parseRetranslate(args.options?.retranslate),
      retryFailedQa: args.options?.retryFailedQa ?? false,
      // Outputs with imported wording whose noted job is still their latest delivery.
      importedWording: await waitingWording(state, path.dirname(loaded.statePath), index),
      ...NOTHING_IN_FLIGHT,
      listing: undefined,
    };
    return new Planner(ctx, args.options ?? {});
  }

  /** The ledger's view of the outputs (the executor keeps it current). */
  get index(): OutputIndex {
    return this.ctx.index;
  }

  /** The run's context for one call, beside the work in flight now. */
  private beside(work: WorkInFlight): PlanContext {
    return {
      ...this.ctx,
      busy: (o) => work.busy(o),
      idle: () => work.idle(),
      refusedDonor: (o) => work.refusedDonor?.(o) ?? false,
      listing: undefined,
    };
  }

  /** Style and glossary ids, and what of them is pending a change, from the reconcilers. */
  async useStyles(styles: PlanStyles): Promise<void> {
    this.styles = {
      styleIds: { ...styles.styleIds },
      pendingChanges: [...styles.pendingChanges],
      glossaryIds: { ...styles.glossaryIds },
      pendingGlossaryPairs: [...(styles.pendingGlossaryPairs ?? [])],
      ...(styles.blocked ? { blocked: { ...styles.blocked } } : {}),
      ...(styles.blockedGlossaries ? { blockedGlossaries: { ...styles.blockedGlossaries } } : {}),
    };
    this.ctx.settings = await TargetSettings.load(this.ctx.loaded, this.ctx.state, this.styles);
  }

  private inputs(): PlanInputs {
    return {
      manifest: this.ctx.loaded.path,
      ...(this.opts.only?.length ? { only: [...this.opts.only] } : {}),
      ...(this.opts.retranslate ? { retranslate: this.opts.retranslate } : {}),
      styles: { styleIds: this.styles.styleIds, changedKeys: this.styles.pendingChanges },
    };
  }

  private mappings(names?: string[]): Mapping[] {
    const all = this.ctx.loaded.manifest.mappings;
    const wanted = names ?? this.opts.only;
    if (!wanted || wanted.length === 0) return all;
    return all.filter((m) => wanted.includes(m.name));
  }

  private mappingNamed(name: string): Mapping | undefined {
    return this.ctx.loaded.manifest.mappings.find((x) => x.name === name);
  }

  /**
   * The plan of a run: recorded uploads resumed first, then every (or the named) mapping in path
   * order, the outputs of deleted sources last.
   */
  async plan(mappingNames?: string[], work: WorkInFlight = NOTHING_IN_FLIGHT): Promise<PlanOutcome> {
    const ctx = this.beside(work);
    const b = new PlanBuilder(this.inputs());
    for (const job of ctx.index.openJobs()) {
      if (job.status !== 'uploaded' || !job.document_id || !job.document_key) continue;
      if (outputGivenUp(job, ctx.loaded.manifest.max_attempts)) continue; // its mapping's plan says so
      b.resumed.add(job.id);
      b.plannedContentAt(job.sha256, job.fingerprint, job.output_path);
      b.add({
        kind: 'resume',
        ref: { mapping: job.mapping, file: job.rel_path, target: job.target_lang, output: job.output_path },
        jobId: job.id,
        documentId: job.document_id,
      });
    }
    for (const m of this.mappings(mappingNames)) await planMapping(ctx, b, m);
    await planRemovals(ctx, b, b.gone);
    return { plan: b.plan, deferred: b.deferred };
  }

  /** A file appeared or changed (watch): its plan; 'gone' when it does not exist any more. */
  async planFile(mapping: string, relPath: string, work: WorkInFlight): Promise<PlanOutcome | 'gone'> {
    const m = this.mappingNamed(mapping);
    if (!m) throw new Error(`no mapping named ${mapping}`);
    const b = new PlanBuilder(this.inputs());
    if ((await planPath(this.beside(work), b, m, relPath)) === 'gone') return 'gone';
    return { plan: b.plan, deferred: b.deferred };
  }

  /** A source was deleted (watch): the deletions its policy asks for. */
  async planRemoval(mapping: string, relPath: string): Promise<Plan> {
    const m = this.mappingNamed(mapping);
    if (!m) throw new Error(`no mapping named ${mapping}`);
    const b = new PlanBuilder(this.inputs());
    await planRemovals(this.ctx, b, [{ mapping: m, relPath }]);
    return b.plan;
  }

  /**
   * Plan one (file, target) again with what the file holds now: its source was replaced after it
   * was planned, or work on its output changed what the output holds. Nothing when the file is gone
   * (its deletion is handled by the watcher's event or the next scan).
   */
  async planOutput(ref: OutputRef, work: WorkInFlight): Promise<Plan | undefined> {
    const m = this.mappingNamed(ref.mapping);
    if (!m) return undefined;
    const b = new PlanBuilder(this.inputs());
    if ((await planPath(this.beside(work), b, m, ref.file, ref.output)) === 'gone') return undefined;
    return b.plan;
  }
}
