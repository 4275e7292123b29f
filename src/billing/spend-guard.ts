import type { SharedBudget } from '../state/types.js';
import { capBeforeUpload, type BudgetCaps, type CapExceeded } from './budget.js';
import { monthStart } from './ledger.js';
import { priceUpload } from './price.js';

// The budget caps while a run goes on. The plan's price was checked before the first upload, but it is
// an estimate (a count the service may not share, a source replaced by a bigger one, work that came
// later in watch): each upload reserves its estimate, a finished document replaces the estimate with
// what the service billed, and an upload that would take the run over a cap is not made.
// A run is one process: its own caps (per_run, --max-billed) are held here. The month's cap is the
// pipeline's: with several workers (PostgreSQL) each upload also reserves its estimate in the
// database (SharedBudget), atomically against what every worker billed or reserved.

/** Characters of the document at an absolute path as locsync counts them; undefined: unreadable. */
export type CountDocument = (absPath: string) => Promise<number | undefined>;

export interface SpendGuardOptions {
  caps: BudgetCaps;
  /** Characters billed this calendar month before the run began (the state's ledger). */
  billedThisMonth: number;
  count: CountDocument;
  /** Estimates the plan's price already made (estimateKey → billed): not counted again. */
  known?: ReadonlyMap<string, number>;
  /** The month's reservations of every worker (a PostgreSQL state shared by several). */
  shared?: SharedBudget;
}

/** The key of a known estimate: a source file with this content. */
export function estimateKey(mapping: string, file: string, sha256: string): string {
  return `${mapping}\0${file}\0${sha256}`;
}

export class SpendGuard {
  /** Estimates of this run's uploads whose bill is not known yet, by job id. */
  private readonly reserved = new Map<number, number>();
  /** Billed characters of this run's finished documents. */
  private billed = 0;
  /** Billed characters of documents an earlier run uploaded and this run collected (the month's). */
  private collected = 0;
  /** Jobs whose bill is counted (the bill is reported at the download and again when done). */
  private readonly settled = new Set<number>();

  constructor(private readonly o: SpendGuardOptions) {}

  /** What uploading a job's document (at `absPath`) is expected to bill. */
  async estimate(
    job: { mapping: string; rel_path: string; sha256: string },
    absPath: string,
  ): Promise<number> {
    const known = this.o.known?.get(estimateKey(job.mapping, job.rel_path, job.sha256));
    if (known !== undefined) return known;
    return priceUpload(job.rel_path, (await this.o.count(absPath)) ?? null).billed;
  }

  /**
   * Reserve `estimate` characters for job `jobId` before its upload; answers the cap it would exceed
   * instead (nothing reserved). This run's reservation is made before anything is awaited, so that
   * uploads starting together cannot both slip in; then the month's, shared by every worker.
   */
  async reserve(jobId: number, estimate: number): Promise<CapExceeded | undefined> {
    const over = capBeforeUpload(
      this.committed(),
      estimate,
      this.o.caps,
      this.o.billedThisMonth + this.collected,
    );
    if (over) return over;
    this.reserved.set(jobId, estimate);
    // An upload again (its download was lost) is billed again.
    this.settled.delete(jobId);
    const perMonth = this.o.caps.perMonth;
    if (this.o.shared && perMonth !== undefined) {
      const refused = await this.o.shared.reserveMonth(jobId, estimate, perMonth, monthStart(new Date()));
      if (refused) {
        this.reserved.delete(jobId);
        return { cap: 'per_month', limit: perMonth, used: refused.used, adding: estimate };
      }
    }
    return undefined;
  }

  /**
   * The service billed `characters` for job `jobId`, and the state records it: its estimate is
   * replaced by the bill (and the shared reservation given back). Answers the characters billed
   * beyond the estimate (0 when within it): by that much, and only that, a cap can be exceeded.
   */
  async settle(jobId: number, characters: number): Promise<number> {
    if (this.settled.has(jobId)) return 0;
    this.settled.add(jobId);
    const estimate = this.reserved.get(jobId);
    if (estimate === undefined) {
      this.collected += characters;
      return 0;
    }
    this.reserved.delete(jobId);
    this.billed += characters;
    await this.o.shared?.release(jobId);
    return Math.max(0, characters - estimate);
  }

  /** The upload of job `jobId` surely did not reach the service (or its document failed): nothing billed. */
  release(jobId: number): void {
    if (this.reserved.delete(jobId))
      // Given back late at worst (it counts a little longer): never an error of the run.
      void this.o.shared?.release(jobId).catch(() => undefined);
  }

  /**
   * The upload of job `jobId` may have been accepted (its answer was lost): its estimate counts as
   * billed for good, so that an upload of it again reserves (and counts) once more.
   */
  possiblyBilled(jobId: number): void {
    const estimate = this.reserved.get(jobId);
    if (estimate === undefined) return;
    this.reserved.delete(jobId);
    this.billed += estimate;
  }

  /** Characters this run has billed or reserved. */
  committed(): number {
    let sum = this.billed;
    for (const v of this.reserved.values()) sum += v;
    return sum;
  }
}
