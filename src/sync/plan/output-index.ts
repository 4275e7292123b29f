import type { DoneIndexRow, JobLedger, JobRecord } from '../../state/types.js';
import { contentKey } from './types.js';

// What the ledger says about each output, as the planner needs it: the latest done job of an output
// (what the file on disk holds), outputs holding a translation of a content (reuse donors), and the
// open job of an output. Kept in memory for one run and updated by the executor as jobs change, so
// that a decision made later in the run sees the work done before it.

/** What the planner keeps of the latest done job of an output path. */
export type DoneEntry = Pick<
  DoneIndexRow,
  'id' | 'sha256' | 'fingerprint' | 'base_fingerprint' | 'mapping' | 'rel_path'
>;

/**
 * Outputs looked up one by one (by index) before the whole done index is loaded: a run where few files
 * changed never reads every done job; one where many did reads them once.
 */
export const POINT_LOOKUPS_BEFORE_INDEX = 2000;

/**
 * A lookup by index costs about as much as reading this many rows of the whole index: with many
 * outputs recorded, a few thousand new files are looked up one by one rather than load them all.
 */
const ROWS_PER_LOOKUP = 8;

export class OutputIndex {
  private latestDone: Map<string, DoneEntry> | undefined;
  private pointLookups = 0;
  /** Outputs the state records for the files being planned (an estimate of the done index's size). */
  private knownOutputs = 0;
  private loading: Promise<void> | undefined;
  private readonly doneWhileLoading: DoneIndexRow[] = [];
  /** content key → outputs whose latest done job has that content (a string for one, an array for copies). */
  private readonly byContent = new Map<string, string | string[]>();
  private byContentBuilt = false;
  private readonly openByOutput = new Map<string, JobRecord>();
  /** Outputs read ahead (prefetch) and their latest done jobs (undefined: none). */
  private ahead = new Map<string, DoneEntry | undefined>();

  private constructor(
    private readonly ledger: JobLedger,
    /**
     * When this view of the ledger was read (JobLedger.horizon): what another worker wrote since, a
     * plan made from it does not know (a billed call checks for it before it leaves). Not moved by
     * takeOverOpen, which adds only outputs the view did not hold.
     */
    readonly since: string,
  ) {}

  static async load(ledger: JobLedger): Promise<OutputIndex> {
    const index = new OutputIndex(ledger, await ledger.horizon());
    for (const job of await ledger.open()) index.openByOutput.set(job.output_path, job);
    return index;
  }

  /** The planner found `n` more outputs recorded in the state (files known × their targets). */
  expectOutputs(n: number): void {
    this.knownOutputs += n;
  }

  /**
   * The outputs a scan is about to look up (those of a part of its files): their latest done jobs
   * read in one call, answered by doneOf until the next part. A scan of 100,000s of files that are
   * not marked verified (the first after a run with much work) so never holds the whole done index.
   */
  async prefetch(outputs: readonly string[]): Promise<void> {
    this.ahead = new Map();
    if (this.latestDone !== undefined || outputs.length === 0) return;
    const ahead = new Map<string, DoneEntry | undefined>();
    for (const o of outputs) ahead.set(o, undefined);
    for (const row of await this.ledger.latestDoneOfEach(outputs)) ahead.set(row.output_path, entryOf(row));
    this.ahead = ahead;
  }

  /** The latest done job of an output: read ahead, by index, or from the whole done index once loaded. */
  async doneOf(output: string): Promise<DoneEntry | undefined> {
    if (this.latestDone === undefined && this.ahead.has(output)) return this.ahead.get(output);
    if (
      this.latestDone === undefined &&
      ++this.pointLookups > Math.max(POINT_LOOKUPS_BEFORE_INDEX, this.knownOutputs / ROWS_PER_LOOKUP)
    )
      await (this.loading ??= this.loadAll());
    return this.latestDone ? this.latestDone.get(output) : this.ledger.latestDoneOf(output);
  }

  /** Load every done job once; jobs that become done meanwhile are applied after it. */
  private async loadAll(): Promise<void> {
    const all = new Map<string, DoneEntry>();
    for await (const row of this.ledger.doneIndex()) all.set(row.output_path, row);
    this.latestDone = all;
    for (const row of this.doneWhileLoading.splice(0)) this.jobDone(row);
  }

  /**
   * Outputs that hold a translation of this content with these settings (reuse donors), each with
   * the done job found holding it. The job comes with the output, not from a later lookup: an output
   * replaced meanwhile (two sources swapped: each output is the other's donor) would otherwise be
   * given its new job, and the copy checked against what it holds now, not against this content.
   */
  async donors(sha256: string, fp: string): Promise<Array<{ output: string; jobId: number }>> {
    const latest = this.latestDone;
    if (latest === undefined) {
      const found = new Map<string, number>();
      for (const j of await this.ledger.doneWithContent(sha256, fp))
        if (!found.has(j.output_path) && (await this.doneOf(j.output_path))?.id === j.id)
          found.set(j.output_path, j.id);
      return [...found].map(([output, jobId]) => ({ output, jobId }));
    }
    if (!this.byContentBuilt) {
      // Built on first need: a run where nothing changed never needs it.
      this.byContentBuilt = true;
      for (const [out, d] of latest) this.addDonor(contentKey(d.sha256, d.fingerprint), out);
    }
    const cur = this.byContent.get(contentKey(sha256, fp));
    const outs = cur === undefined ? [] : typeof cur === 'string' ? [cur] : cur;
    return outs.map((output) => ({ output, jobId: latest.get(output)?.id ?? 0 }));
  }

  /** The open (not done) job recorded for an output. */
  openOf(output: string): JobRecord | undefined {
    return this.openByOutput.get(output);
  }

  /**
   * What a planned action that continues the open job `jobId` of `output` carries: the job, and its
   * updated_at as the plan read it (a later stamp is another run's write since: ../run/claims.ts).
   */
  continued(output: string, jobId: number): { jobId: number; jobUpdatedAt?: string } {
    const open = this.openByOutput.get(output);
    return open?.id === jobId ? { jobId, jobUpdatedAt: open.updated_at } : { jobId };
  }

  /**
   * Read the open jobs again (several workers share the state): those this worker can take now —
   * the work of a worker whose lease ran out — join the ones it has.
   */
  async takeOverOpen(): Promise<void> {
    for (const job of await this.ledger.open())
      if (!this.openByOutput.has(job.output_path)) this.openByOutput.set(job.output_path, job);
  }

  /** Open jobs recorded when the run started, oldest first. */
  openJobs(): JobRecord[] {
    return [...this.openByOutput.values()].sort((a, b) => a.id - b.id);
  }

  /** A job changed and is still open (uploaded, failed, superseded). */
  jobOpen(job: JobRecord): void {
    this.openByOutput.set(job.output_path, job);
  }

  /** A job left the ledger without becoming done (a superseded row never sent). */
  jobGone(job: JobRecord): void {
    if (this.openByOutput.get(job.output_path)?.id === job.id) this.openByOutput.delete(job.output_path);
  }

  /** A job became done (already recorded in the ledger): its output holds it now. */
  jobDone(row: DoneIndexRow): void {
    this.jobGone(row as JobRecord);
    if (this.ahead.has(row.output_path)) this.ahead.set(row.output_path, entryOf(row));
    if (this.latestDone === undefined) {
      // The ledger answers point lookups; a load under way must not miss this job.
      if (this.loading) this.doneWhileLoading.push(row);
      return;
    }
    const out = row.output_path;
    const prev = this.latestDone.get(out);
    if (prev && this.byContentBuilt) this.dropDonor(contentKey(prev.sha256, prev.fingerprint), out);
    this.latestDone.set(out, entryOf(row));
    if (this.byContentBuilt) this.addDonor(contentKey(row.sha256, row.fingerprint), out);
  }

  private addDonor(k: string, out: string): void {
    const cur = this.byContent.get(k);
    if (cur === undefined) this.byContent.set(k, out);
    else if (typeof cur === 'string') {
      if (cur !== out) this.byContent.set(k, [cur, out]);
    } else if (!cur.includes(out)) cur.push(out);
  }

  private dropDonor(k: string, out: string): void {
    const cur = this.byContent.get(k);
    if (cur === out) this.byContent.delete(k);
    else if (Array.isArray(cur)) {
      const rest = cur.filter((o) => o !== out);
      if (rest.length === 0) this.byContent.delete(k);
      else this.byContent.set(k, rest.length === 1 ? (rest[0] as string) : rest);
    }
  }
}

/** What the planner keeps of a done row (not its output path: the key it is kept by). */
function entryOf(row: DoneIndexRow): DoneEntry {
  return {
    id: row.id,
    sha256: row.sha256,
    fingerprint: row.fingerprint,
    base_fingerprint: row.base_fingerprint,
    mapping: row.mapping,
    rel_path: row.rel_path,
  };
}
