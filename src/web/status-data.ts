import path from 'node:path';
import type { LoadedManifest } from '../manifest/load.js';
import { editedOutputs, type EditedOutput } from '../sync/edited-outputs.js';
import { qaOutputs } from '../report/qa-outputs.js';
import type { BillingRow } from '../report/queries.js';
import { collectStatus, scanForStatus, type ScanResult, type StatusData } from '../report/status-data.js';
import type { StatusSource } from '../report/status-source.js';
import type { RunState } from '../sync/engine.js';
import type { SyncEvents } from '../sync/events.js';
import type { RunTotals, RunTracker } from '../sync/run-tracker.js';

// What the status page shows, gathered on each request from the state (runs, failures, billing)
// and the live run (jobs in flight); the scan for per-language progress is slower and refreshed in
// the background: soon after files arrive or outputs land, else once a minute.

/** How often the status page looks again for outputs people edited. */
const EDITED_EVERY_MS = 5_000;

export interface StatusPageSource {
  /** The state the scan plans with. */
  state: RunState;
  /** The state's runs, jobs and billing as status reads them (either backend). */
  status: StatusSource;
  /** The manifest in force (watch applies edits while it runs). */
  manifest: () => LoadedManifest;
  /** The live run (watch's events), for jobs in flight with their phase and age. */
  tracker?: RunTracker;
  /** watch's health: uploads stopped and why, files waiting to be handed over. */
  health?: () => { ok: boolean; problem?: string; queue_depth: number };
  /** The monthly character budget, when one is set. */
  monthlyBudget?: () => number | undefined;
  /** How often the source folders are scanned for the progress table (default 60 s). */
  scanEveryMs?: number;
  /**
   * The live run's events (watch): a file that arrives or goes, an output that lands or fails,
   * makes the next request scan again, so the table follows the run.
   */
  events?: SyncEvents;
}

/** Events after which the progress table is out of date. */
const PROGRESS_EVENTS = [
  'source:changed',
  'file:removed',
  'scan:done',
  'job:done',
  'job:reused',
  'job:failed',
  'job:qa',
  'job:stale',
] as const;

/** A scan after changes waits at least this long after the last, and 5 times what that one took. */
const RESCAN_MIN_MS = 1_000;

export interface StatusPageData {
  generatedAt: string;
  pipeline: string;
  health: { ok: boolean; problem?: string; queue_depth: number } | null;
  status: StatusData;
  live: {
    totals: RunTotals;
    jobs: Array<{
      mapping: string;
      file: string;
      target: string;
      phase: string;
      age_seconds: number;
      document_id: string | null;
    }>;
  } | null;
  month: { month: string; rows: BillingRow[]; total: BillingRow; budget: number | null };
}

export class StatusPageCollector {
  private scan: ScanResult | undefined;
  private scannedAt = 0;
  private scanTookMs = 0;
  private scanning: Promise<void> | undefined;
  /** Something the table counts changed since the last scan began. */
  private changed = false;

  constructor(private readonly src: StatusPageSource) {
    for (const e of PROGRESS_EVENTS) src.events?.on(e, () => (this.changed = true));
  }

  /**
   * Start a background scan when the last one is older than scanEveryMs, or when the run changed
   * what it counts (bounded: a scan of a big tree is not repeated back to back).
   */
  private refreshScan(now: number): void {
    if (this.scanning) return;
    const age = now - this.scannedAt;
    const due =
      age >= (this.src.scanEveryMs ?? 60_000) ||
      (this.changed && age >= Math.max(RESCAN_MIN_MS, 5 * this.scanTookMs));
    if (!due) return;
    this.changed = false;
    const started = Date.now();
    this.scanning = scanForStatus(this.src.manifest(), this.src.state)
      .then((s) => {
        this.scan = s;
        this.scannedAt = Date.now();
        this.scanTookMs = this.scannedAt - started;
      })
      .catch(() => {
        // The table waits for the next scan; the rest of the page does not depend on it.
        this.scannedAt = Date.now();
      })
      .finally(() => (this.scanning = undefined));
  }

  private edited: { at: number; list: Promise<EditedOutput[]> } | undefined;

  /**
   * The outputs people edited: every recorded output is looked at (a stat each), so at most every
   * EDITED_EVERY_MS, not on each refresh of every open page.
   */
  private editedOutputs(loaded: LoadedManifest, now: number): Promise<EditedOutput[]> {
    if (!this.edited || now - this.edited.at >= EDITED_EVERY_MS)
      this.edited = {
        at: now,
        // The advice names the manifest as seen from its folder (outputs are named from there too).
        list: editedOutputs(
          this.src.state.jobs,
          loaded.dir,
          path.relative(loaded.dir, loaded.path),
          path.dirname(loaded.statePath),
        ).catch((err: unknown) => {
          this.edited = undefined;
          throw err;
        }),
      };
    return this.edited.list;
  }

  /** The scan in progress, if any (tests wait for it). */
  settled(): Promise<void> {
    return this.scanning ?? Promise.resolve();
  }

  async collect(now = Date.now()): Promise<StatusPageData> {
    this.refreshScan(now);
    const loaded = this.src.manifest();
    const month = new Date(now).toISOString().slice(0, 7);
    const qa = await qaOutputs(this.src.state.qaResults);
    const [status, billed, edited] = await Promise.all([
      collectStatus(this.src.status, loaded, {
        runs: 10,
        config: loaded.path,
        now,
        ...(this.scan ? { scan: this.scan } : {}),
        qa,
      }),
      this.src.status.billing({ by: 'language', since: `${month}-01T00:00:00.000Z` }),
      this.editedOutputs(loaded, now),
    ]);
    const t = this.src.tracker;
    return {
      generatedAt: new Date(now).toISOString(),
      pipeline: loaded.path,
      health: this.src.health?.() ?? null,
      status: { ...status, edited, qa },
      live: t
        ? {
            totals: t.totals(),
            jobs: t.inFlight().map((j) => ({
              mapping: j.ref.mapping,
              file: j.ref.file,
              target: j.ref.target,
              phase:
                j.phase === 'waiting' && j.serviceStatus ? `at the service (${j.serviceStatus})` : j.phase,
              age_seconds: Math.round((now - j.since) / 1000),
              document_id: j.ref.documentId ?? null,
            })),
          }
        : null,
      month: {
        month,
        rows: billed.rows,
        total: billed.total,
        budget: this.src.monthlyBudget?.() ?? loaded.manifest.budget?.per_month ?? null,
      },
    };
  }
}
