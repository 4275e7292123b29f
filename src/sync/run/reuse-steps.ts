import fs from 'node:fs';
import path from 'node:path';
import PQueue from 'p-queue';
import { CopyMismatchError, copyFileAtomic } from '../../util/part-file.js';
import { contentKey, type OutputRef, type ResavedAction, type ReuseAction } from '../plan/types.js';
import type { Claims } from './claims.js';
import type { DecideAgainBecause } from './decide-again.js';
import { besidePath, Placement, recordOf, writtenOf } from './edited-output.js';
import type { ExecutorDeps } from './executor-deps.js';
import type { ContentInFlight } from './output-order.js';
import { keepFor } from './replaced-outputs.js';
import { outputFile } from '../../manifest/in-place-output.js';

// The work that uploads nothing: an output copied from an identical translation (of this run, of
// an earlier one, of another pipeline), and a source saved again without a change of content.

export interface ReuseHooks {
  /** Report a (file, target) to decide again, and wait until the run loop took it up. */
  again(ref: OutputRef, because: DecideAgainBecause): Promise<void>;
  /** Wait for other work (lost answers take their turn meanwhile). */
  waitAside(p: Promise<void>): Promise<void>;
}

export class ReuseSteps {
  private readonly copies = new PQueue({ concurrency: 4 });
  /** Donor outputs a copy found changed in this run: no reuse donors for the rest of it. */
  private readonly refusedDonors = new Set<string>();

  constructor(
    private readonly deps: ExecutorDeps,
    private readonly claims: Claims,
    private readonly content: ContentInFlight,
    private readonly hooks: ReuseHooks,
  ) {}

  refusedDonor(output: string): boolean {
    return this.refusedDonors.has(output);
  }

  async reuse(a: ReuseAction): Promise<void> {
    let fromJobId = a.fromJobId ?? 0;
    if (a.donor === 'planned') {
      // The donor is made by an earlier action of this plan: wait for it, then copy what it holds.
      const inflight = this.content.of(contentKey(a.source.sha256, a.settings.fingerprint));
      if (inflight) await this.hooks.waitAside(inflight);
      const done = await this.deps.index.doneOf(a.from);
      const holds =
        done?.sha256 === a.source.sha256 &&
        done.fingerprint === a.settings.fingerprint &&
        fs.existsSync(path.resolve(this.deps.loaded.dir, a.from));
      if (!holds) return this.hooks.again(a.ref, 'donor-failed');
      fromJobId = done.id;
    }
    await this.copies.add(() => this.copy(a, fromJobId));
  }

  private async copy(a: ReuseAction, fromJobId: number): Promise<void> {
    const { loaded, state, ledger, report, logger, runId } = this.deps;
    try {
      const outputAbs = path.resolve(loaded.dir, outputFile(a.ref.output));
      const previous = await state.jobs.latestDoneOf(a.ref.output);
      const placement = new Placement(
        outputAbs,
        previous && (await state.jobs.get(previous.id)),
        this.deps.overwriteEdits ?? false,
        besidePath,
        keepFor({ base: loaded.dir, stateFolder: path.dirname(loaded.statePath) }, runId, {
          outputRel: a.ref.output,
          target: a.ref.target,
          sourceAbs: path.resolve(loaded.dir, a.source.path),
        }),
      );
      // A donor output is copied only as it was written (else: planned again, uploaded): another
      // pipeline's may have been edited, and one of this run's may already hold a new translation
      // (two sources swapped: each output is the other's donor).
      const written = a.across?.outputSha256 ?? (await state.jobs.get(fromJobId))?.output_sha256 ?? undefined;
      const bytes = await copyFileAtomic(
        path.resolve(loaded.dir, a.from),
        outputAbs,
        placement.placeAt,
        written,
      );
      const job = await ledger.reused(this.claims.newJob(a), fromJobId, await writtenOf(placement.placed));
      if (a.across)
        await state.acrossPipelines?.copiedFrom(job.id, { pipeline: a.across.pipeline, jobId: fromJobId });
      if (placement.beside) report.editedKept(job, placement.placed, logger);
      report.reused(job, fromJobId, a.across ? `pipeline ${a.across.pipeline}: ${a.from}` : a.from, bytes);
    } catch (err) {
      if (this.claims.leftToOtherWorker(err, a.ref)) return;
      if (err instanceof CopyMismatchError) {
        this.refusedDonors.add(a.from);
        return this.hooks.again(a.ref, 'donor-changed');
      }
      report.unitFailed(a.ref, 'output', `copying ${a.from}: ${(err as Error).message}`, true);
    }
  }

  /**
   * A source saved again without a change of content: its output stays as it is, and a done job
   * records the new bytes against the translation it holds (so the next scan finds it up to date).
   */
  async resaved(a: ResavedAction): Promise<void> {
    // Only while the output still holds the translation this was planned against.
    if ((await this.deps.index.doneOf(a.ref.output))?.id !== a.doneId)
      return this.hooks.again(a.ref, 'output-moved-on');
    try {
      const job = await this.deps.ledger.reused(
        this.claims.newJob(a),
        a.doneId,
        // The output is untouched: the record of what was written there carries over.
        recordOf(await this.deps.state.jobs.get(a.doneId)),
      );
      this.deps.report.resaved(job);
    } catch (err) {
      if (this.claims.leftToOtherWorker(err, a.ref)) return;
      throw err;
    }
  }
}
