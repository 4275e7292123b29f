import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import { QaFailedError, type OutputGate } from '../../qa/gate.js';
import type { JobLedger, JobRecord } from '../../state/types.js';
import { outputLanguage } from '../../manifest/in-place-output.js';
import { besideOf, Placement, writtenOf } from './edited-output.js';
import type { Drive } from './drive.js';
import type { JobEnds, JobEndsDeps, JobOutcome } from './job-ends.js';
import { keepFor } from './replaced-outputs.js';

// The delivery step of a job, one for both methods (./job-lifecycle.ts): the translation a method
// made (a download in the spool, a document written from segments) is put where it goes — over
// its output, or beside it when a person edited the output (./edited-output.ts; what it replaces is
// kept, ./replaced-outputs.ts) — through a part file that the output checks (../../qa/gate.ts) see
// before it is renamed into place; then the job is recorded done with what it wrote, the checks'
// verdict kept, the budget settled and the job reported. A translation the checks refuse is not
// delivered (it is in the quarantine, the previous output stays) and not bought again by the next
// run: only `sync --retry-failed-qa` buys it again.

export interface DeliveryDeps extends JobEndsDeps {
  jobs: JobLedger;
  /** The manifest's folder (outputs are relative to it). */
  base: string;
  /** The spool, in the state folder (../../util/spool.ts): what is kept goes beside it. */
  spoolDir: string;
  runId: number;
  /** The output checks of each translation before it is put in place (../../qa/gate.ts). */
  gate: OutputGate;
  /** sync --overwrite-edits: outputs edited by people are replaced (./edited-output.ts). */
  overwriteEdits?: boolean;
}

/** Where a translation is put: a Placement (over the output unless a person edited it), or beside it. */
export type OutputPlace = Pick<Placement, 'placed' | 'beside' | 'placeAt'>;

/** The output as a job's last delivery left it (a person's edit since then is left alone). */
export type OutputRecord = Pick<JobRecord, 'output_sha256' | 'output_size' | 'output_mtime_ms'>;

/**
 * Where a method wants its translation: over the output as its last delivery left it (`previous`:
 * looked up as the translation is delivered), or beside it whatever the output holds.
 */
export type PlaceWanted = { over: 'previous' | OutputRecord | undefined } | 'beside';

/** What a write put where: its bytes, and the file recorded as the job's output. */
export interface Written {
  bytes: number;
  recorded: Pick<Placement, 'placed' | 'beside'>;
  /** The content's sha256 when the method knows it (a spooled download). */
  sha256?: string;
}

/** A method's translation, ready to be put in place. */
export interface Translation {
  place: PlaceWanted;
  /** Writes it at `place`; `vet` (the output checks) sees the candidate file before its rename. */
  write(place: OutputPlace, vet: (candidate: string) => Promise<void>): Promise<Written>;
  /** A write that failed for another reason than the checks: how the drive goes on. */
  writeFailed(err: unknown): Promise<JobOutcome | 'again'>;
  /** The checks refused it: what the method forgets of it (nothing is bought from it again). */
  refused?(): Promise<void>;
  /** Characters recorded as billed on the job row. */
  billed(): Promise<number>;
  /** Characters this drive spent: settled against the budget and reported. */
  spent(): number;
  /** Recorded done (`job`): what the method keeps of the delivery. */
  recorded?(job: JobRecord): Promise<void>;
  /** Delivered and reported: what the method clears away. */
  cleared?(): Promise<void>;
}

/** The job's earlier delivery (another job's), whose output a person may have edited since. */
export async function previousDelivery(jobs: JobLedger, job: JobRecord): Promise<JobRecord | undefined> {
  const previous = await jobs.latestDoneOf(job.output_path);
  return previous && previous.id !== job.id ? await jobs.get(previous.id) : undefined;
}

/**
 * A place beside the output whatever the output holds (its person's wording stays in it). `output`:
 * the output as the job names it, whose language a part of an in-place file's beside name says.
 */
export function besideOnly(outputAbs: string, output?: string): OutputPlace {
  const beside = besideOf(output);
  return { placed: beside(outputAbs), beside: true, placeAt: (dest) => Promise.resolve(beside(dest)) };
}

export class OutputDelivery {
  constructor(private readonly deps: DeliveryDeps) {}

  /** Put the translation in place and record the job done (or how the checks or the write ended it). */
  async deliver(dr: Drive, t: Translation, ends: JobEnds<Drive>): Promise<JobOutcome | 'again'> {
    const log = ends.log(dr.job);
    const place =
      t.place === 'beside'
        ? besideOnly(dr.outputAbs, dr.job.output_path)
        : this.placementOver(
            dr,
            t.place.over === 'previous' ? await previousDelivery(this.deps.jobs, dr.job) : t.place.over,
          );
    let written: Written;
    try {
      written = await t.write(place, async (candidate) => {
        dr.qa = await this.deps.gate.vet(dr.job, dr.sourceAbs, candidate);
      });
    } catch (err) {
      if (!(err instanceof QaFailedError)) return t.writeFailed(err);
      await t.refused?.();
      this.deps.report.qaChecked(dr.job, err.result, log);
      return ends.fail(dr, 'qa-failed', err.message, {
        willRetry: false,
        keepDocument: false,
        countsAttempt: true,
      });
    }
    await this.recordDone(dr, t, written, log);
    await t.cleared?.();
    return 'done';
  }

  /** Over the output as `record` left it, or beside it when a person edited it since. */
  private placementOver(dr: Drive, record: OutputRecord | undefined): Placement {
    return new Placement(
      dr.outputAbs,
      record,
      this.deps.overwriteEdits ?? false,
      besideOf(dr.job.output_path),
      keepFor({ base: this.deps.base, stateFolder: path.dirname(this.deps.spoolDir) }, this.deps.runId, {
        outputRel: dr.job.output_path,
        target: dr.job.target_lang,
        sourceAbs: dr.sourceAbs,
      }),
    );
  }

  /** The output holds the translation: the job recorded done with what it wrote, and reported. */
  private async recordDone(dr: Drive, t: Translation, w: Written, log: Logger): Promise<void> {
    // A target written into its source file is recorded as its part of it (./edited-output.ts).
    const lang = outputLanguage(dr.job.output_path);
    const file = await writtenOf(w.recorded.placed, w.sha256, lang ? { lang } : undefined).catch(
      () => undefined,
    );
    dr.job = await this.deps.ledger.done(dr.job, await t.billed(), file);
    await t.recorded?.(dr.job);
    if (dr.qa) {
      // The checks' verdict kept in the state and reported (a flagged output is listed by the summary).
      await this.deps.gate.record(dr.job, dr.qa);
      this.deps.report.qaChecked(dr.job, dr.qa, log);
    }
    if (w.recorded.beside) this.deps.report.editedKept(dr.job, w.recorded.placed, log);
    const spent = t.spent();
    await this.deps.guard?.settle(dr.job.id, spent);
    if (dr.holdsSlot) this.deps.slots.release();
    dr.holdsSlot = false;
    this.deps.report.jobDone(dr.job, spent, w.bytes, log);
  }
}
