// What a state shared by several workers (PostgreSQL) adds: claims of units, the budget and the
// account's limits held for all workers, translations shared across pipelines.
// Part of the state interface (./types.ts).
import type { JobRecord } from './job-types.js';
import type { SegmentClaims } from './segment-types.js';

/**
 * What a state shared by several workers (PostgreSQL) adds: the rules that make them one pipeline.
 * A single machine's state (SQLite) has none of it.
 */
export interface SharedWork {
  /** The database does not answer now: start no upload (nothing could record its document id). */
  readonly paused: boolean;
  /**
   * Claim the unit of an open job (one the ledger listed) as this worker starts it: the job as it
   * stands now; or the live worker that holds it; or gone (finished or dropped meanwhile).
   */
  take(job: JobRecord): Promise<{ job: JobRecord } | { holder: string } | { gone: true }>;
  /** The live worker other than this one that holds a unit of work now, if any (nothing is claimed). */
  holderOf(unit: { sha256: string; target_lang: string; fingerprint: string }): Promise<string | undefined>;
  /**
   * Units of work other live workers hold now, and those dead workers left unfinished (taken over
   * once their lease ran out): what a sync waits for before it ends.
   */
  othersAtWork(): Promise<number>;
  /**
   * This worker has no work in progress: it gives back every unit it holds (units it took over but
   * had nothing to do for), so that workers waiting for each other never wait forever.
   */
  idle(): Promise<void>;
  /** Units dead workers left with a job, whose lease ran out: to be taken over now. */
  orphaned(): Promise<number>;
  /** Run a style list and glossary reconcile as the only worker doing so (the others wait, then read its result). */
  terminologyExclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Lease of this worker's units, seconds. */
  readonly leaseSeconds: number;
  /** This worker's id (host:pid:random): whose spool holds a download (JobRecord.spool_holder). */
  readonly workerId: string;
  /** Whether that worker is alive (it beat within its lease and did not stop). */
  workerAlive(workerId: string): Promise<boolean>;
  /** Give back the unit of one job this worker took but leaves to another worker (its job stays open). */
  letGo(unit: { sha256: string; target_lang: string; fingerprint: string }): Promise<void>;
  /** The monthly budget, held for every worker of the pipeline together. */
  readonly budget: SharedBudget;
  /** Segments this pipeline's workers are sending now (method: segments): each is sent by one of them. */
  readonly sendingSegments: SegmentClaims;
  /** The manifest's service limits, held for all workers together. */
  accountLimits(o: {
    concurrency: number;
    maxUndownloaded: number;
    requestsPerSecond: number;
    /** The service account (a fingerprint of its key): pipelines of one account share its limits. */
    account?: string;
  }): AccountLimits;
}

/** Budget reservations every worker of a pipeline sees (src/state/postgres/budget.ts). */
export interface SharedBudget {
  /**
   * Reserve `characters` for job `jobId` against the month cap `perMonth`, counting what the
   * pipeline billed since `monthStart` and what every live worker has reserved; atomic. Answers
   * what was billed or reserved before when the reservation would exceed the cap (nothing reserved).
   */
  reserveMonth(
    jobId: number,
    characters: number,
    perMonth: number,
    monthStart: string,
  ): Promise<{ used: number } | undefined>;
  /** The job's reservation is over: its bill is recorded, or nothing was billed. */
  release(jobId: number): Promise<void>;
}

/** A numbered place of one of the account's limits (documents in flight, documents not downloaded). */
export interface AccountPlace {
  kind: 'in_flight' | 'undownloaded';
  slot: number;
}

/** The account's limits, shared by every worker (src/state/postgres/limits.ts). */
export interface AccountLimits {
  /** Make the places and the request bucket exist (idempotent). */
  prepare(): Promise<void>;
  /** Take a place, waiting until one is free anywhere (or `signal` aborts). */
  acquire(kind: AccountPlace['kind'], signal?: AbortSignal): Promise<AccountPlace>;
  release(place: AccountPlace): Promise<void>;
  /** Wait for the account's next request token. */
  takeToken(signal?: AbortSignal): Promise<void>;
  /** The service said slow down: every worker waits `ms`. */
  pause(ms: number): Promise<void>;
}

/** A translation another pipeline on the same database shares (reuse: across_pipelines). */
export interface SharedTranslation {
  /** The other pipeline's name. */
  pipeline: string;
  /** Its done job (in its own state). */
  jobId: number;
  /** Absolute path of its output: its output path under the folder of the manifest it recorded. */
  path: string;
  /** sha256 of that output as it was written: a file that differs now is not copied. */
  outputSha256: string;
}

/**
 * Identical translations shared between pipelines of one database that both opted in: read only
 * from pipelines whose state says they opted in; this pipeline's are offered only while it does.
 */
export interface ReuseAcrossPipelines {
  /** Other opted-in pipelines' done translations of this content, target and settings. */
  translationsOf(unit: {
    sha256: string;
    fingerprint: string;
    target_lang: string;
  }): Promise<SharedTranslation[]>;
  /** A reused job of this pipeline was copied from another pipeline's translation. */
  copiedFrom(jobId: number, from: { pipeline: string; jobId: number }): Promise<void>;
}
