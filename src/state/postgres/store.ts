import type pg from 'pg';
import type { PipelineIdentity } from '../pipeline.js';
import type { Logger } from '../../log/logger.js';
import type { SharedWork } from '../shared-types.js';
import type { AppliedGlossary, AppliedStyle, StyleStateStore } from '../terminology-types.js';
import type { SyncState } from '../types.js';
import {
  holderOf,
  orphanedUnits,
  releaseAllUnits,
  releaseUnit,
  unitKey,
  unitsHeldByOthers,
} from './claims.js';
import { ADVISORY, withAdvisoryLock } from './advisory.js';
import { PgSharedBudget } from './budget.js';
import {
  createPool,
  describeConnectError,
  isSetupError,
  isUnreachable,
  type PostgresStateConfig,
} from './connect.js';
import { Heartbeat, type HeartbeatEvents } from './heartbeat.js';
import { PgContentDigests } from './digests.js';
import { PgTranslationMemory } from './memory.js';
import { PgSegmentMemory } from './segments.js';
import { PgSegmentClaims } from './segment-claims.js';
import { PgImportedWording } from './imported-wording.js';
import { PgQaResults } from './qa-results.js';
import { PgFileInventory } from './inventory.js';
import { claimPgPipeline } from './pipeline.js';
import { PgJobLedger } from './ledger.js';
import { GlobalLimits } from './limits.js';
import { migrate } from './migrate.js';
import { DEFAULT_OUTAGE_MS, patientPool } from './patient.js';
import { PgReuseAcrossPipelines } from './reuse-across.js';
import { PgGlossaryState, PgRunLog, PgStyleState } from './runs.js';
import { displayUrl } from './url.js';
import { registerWorker, stopWorker, workerAlive } from './workers.js';

// The PostgreSQL state: the state interface (job ledger, file inventory, run log) shared by any
// number of workers on any machines. Opened as a worker (sync, watch) it registers in the workers
// table and beats; opened without (status, report, state export) it only reads.

/** Lease of a worker's units and places when the manifest says nothing (seconds). */
export const DEFAULT_LEASE_SECONDS = 30;

export interface OpenPostgresOptions {
  /** Register as a worker running this command (sync, watch); without it the state is read only. */
  worker?: { command: string; leaseSeconds?: number };
  /** Apply missing migrations first (default true). */
  migrate?: boolean;
  logger?: Logger;
  heartbeat?: HeartbeatEvents;
  /** Connections of the pool (default 10). */
  connections?: number;
  /** A worker waits this long for an unreachable server before its statements fail (ms). */
  outageMs?: number;
}

export class PostgresState implements SyncState, StyleStateStore {
  readonly location: string;
  readonly jobs: PgJobLedger;
  readonly files: PgFileInventory;
  readonly digests: PgContentDigests;
  readonly segments: PgSegmentMemory;
  readonly memory: PgTranslationMemory;
  readonly qaResults: PgQaResults;
  readonly importedWording: PgImportedWording;
  readonly runs: PgRunLog;
  readonly styles: PgStyleState;
  readonly glossaries: PgGlossaryState;
  /** The multi-worker rules (a worker only). */
  readonly shared: SharedWork | undefined;
  /** Translations shared with other pipelines of the database (reuse: across_pipelines). */
  readonly acrossPipelines: PgReuseAcrossPipelines | undefined;
  private readonly openLimits: GlobalLimits[] = [];
  /** The pool a worker's own statements use: they wait out an outage (./patient.ts). */
  readonly pool: pg.Pool;

  private constructor(
    /** The pool as opened: its statements fail at once when the server cannot be reached. */
    readonly rawPool: pg.Pool,
    url: string,
    readonly workerId: string | undefined,
    readonly leaseSeconds: number,
    private readonly heartbeat: Heartbeat | undefined,
    outageMs: number,
    logger: Logger | undefined,
    pipeline: PipelineIdentity | undefined,
  ) {
    this.location = displayUrl(url);
    const pool = workerId ? patientPool(rawPool, outageMs, logger) : rawPool;
    this.pool = pool;
    const worker = workerId ? { id: workerId, leaseSeconds } : undefined;
    this.jobs = new PgJobLedger(pool, worker, outageMs);
    this.files = new PgFileInventory(pool);
    this.digests = new PgContentDigests(pool);
    this.memory = new PgTranslationMemory(pool);
    this.qaResults = new PgQaResults(pool);
    this.importedWording = new PgImportedWording(pool);
    this.runs = new PgRunLog(pool, workerId);
    this.styles = new PgStyleState(pool);
    this.glossaries = new PgGlossaryState(pool);
    this.shared = workerId ? this.sharedWork(workerId) : undefined;
    this.acrossPipelines = pipeline?.reuseAcross
      ? new PgReuseAcrossPipelines(pool, pipeline.name)
      : undefined;
    // The segment memory is shared with the same pipelines as documents are (docs/memory.md).
    const across = this.acrossPipelines;
    this.segments = new PgSegmentMemory(pool, across ? () => across.schemas() : undefined);
  }

  private sharedWork(workerId: string): SharedWork {
    const self = this; // eslint-disable-line @typescript-eslint/no-this-alias
    return {
      get paused() {
        return self.paused;
      },
      leaseSeconds: this.leaseSeconds,
      workerId,
      workerAlive: (id) => workerAlive(this.pool, id),
      letGo: (u) => releaseUnit(this.pool, workerId, unitKey(u)),
      take: (job) => this.jobs.take(job),
      holderOf: (u) => holderOf(this.pool, workerId, unitKey(u)),
      othersAtWork: () => unitsHeldByOthers(this.pool, workerId),
      orphaned: () => orphanedUnits(this.pool, workerId),
      idle: () => releaseAllUnits(this.pool, workerId),
      terminologyExclusive: (fn) => this.stylesExclusive(fn),
      budget: new PgSharedBudget(this.pool, workerId),
      sendingSegments: new PgSegmentClaims(this.pool, workerId),
      accountLimits: (o) => this.limits(o),
    };
  }

  /** Connect (a clear error naming the URL without password when the server cannot be reached). */
  static async open(cfg: PostgresStateConfig, opts: OpenPostgresOptions = {}): Promise<PostgresState> {
    const pool = createPool(cfg, { max: opts.connections ?? 10 });
    try {
      if (opts.migrate !== false) await migrate(pool, cfg.url);
      // Before registering: a worker of another pipeline leaves no trace in this one's state.
      if (cfg.pipeline) await claimPgPipeline(pool, cfg.url, cfg.pipeline, !!opts.worker);
      const leaseSeconds = opts.worker?.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
      const workerId = opts.worker
        ? await registerWorker(pool, { command: opts.worker.command, leaseSeconds })
        : undefined;
      const heartbeat = workerId
        ? new Heartbeat(pool, workerId, leaseSeconds, opts.heartbeat, opts.logger)
        : undefined;
      heartbeat?.start();
      const state = new PostgresState(
        pool,
        cfg.url,
        workerId,
        leaseSeconds,
        heartbeat,
        opts.outageMs ?? DEFAULT_OUTAGE_MS,
        opts.logger,
        cfg.pipeline,
      );
      // A reader without migrations may find no schema yet (status before the first run).
      if (opts.migrate !== false) await Promise.all([state.styles.load(), state.glossaries.load()]);
      return state;
    } catch (err) {
      await pool.end().catch(() => undefined);
      if (isUnreachable(err) || isSetupError(err))
        throw new Error(describeConnectError(cfg.url, err), { cause: err });
      throw err;
    }
  }

  async appliedStyle(key: string): Promise<AppliedStyle | undefined> {
    return this.styles.getStyle(key);
  }

  async appliedGlossary(key: string): Promise<AppliedGlossary | undefined> {
    return this.glossaries.getGlossary(key);
  }

  // The reconciler's synchronous view of the applied style lists (StyleStateStore).
  getStyle(key: string): AppliedStyle | undefined {
    return this.styles.getStyle(key);
  }
  setStyle(rec: AppliedStyle): void {
    this.styles.setStyle(rec);
  }
  deleteStyle(key: string): void {
    this.styles.deleteStyle(key);
  }
  allStyles(): AppliedStyle[] {
    return this.styles.allStyles();
  }

  /** The database does not answer the heartbeat now: start no upload. */
  get paused(): boolean {
    return this.heartbeat?.paused ?? false;
  }

  /** The account's limits for all workers together (a worker only). */
  limits(opts: {
    concurrency: number;
    maxUndownloaded: number;
    requestsPerSecond: number;
    account?: string;
  }): GlobalLimits {
    if (!this.workerId) throw new Error('the account limits need a worker (open the state with `worker`)');
    const limits = new GlobalLimits(this.pool, {
      workerId: this.workerId,
      account: opts.account ?? 'account',
      places: { in_flight: opts.concurrency, undownloaded: opts.maxUndownloaded },
      requestsPerSecond: opts.requestsPerSecond,
      leaseSeconds: this.leaseSeconds,
    });
    this.openLimits.push(limits);
    return limits;
  }

  /**
   * Reconcile style lists one worker at a time: the others wait, then read what it recorded (their
   * own reconcile then finds nothing to change).
   */
  async stylesExclusive<T>(fn: () => Promise<T>): Promise<T> {
    return withAdvisoryLock(this.pool, ADVISORY.styles, async () => {
      await Promise.all([this.styles.load(), this.glossaries.load()]);
      const result = await fn();
      await Promise.all([this.styles.flush(), this.glossaries.flush()]);
      return result;
    });
  }

  /** Leave cleanly: the worker is marked stopped and what it holds is given back; the pool closes. */
  async close(): Promise<void> {
    this.heartbeat?.stop();
    for (const l of this.openLimits) l.close();
    try {
      await Promise.all([this.styles.flush(), this.glossaries.flush()]);
      if (this.workerId) await stopWorker(this.rawPool, this.workerId);
    } finally {
      await this.rawPool.end().catch(() => undefined);
    }
  }
}
