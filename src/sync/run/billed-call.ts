import { setTimeout as sleep } from 'node:timers/promises';
import type { CallOptions } from '../../api/transport.js';
import type { SpendGuard } from '../../billing/spend-guard.js';
import type { Logger } from '../../log/logger.js';
import { HeldByOtherWorkerError } from '../../state/held.js';
import type { JobRecord, JobSincePlan, SharedWork } from '../../state/types.js';
import { callFailure, type CallFailure } from './call-failure.js';
import type { RunControl } from './control.js';
import { refOfJob, type LiveSummary } from './live-summary.js';
import type { RunLedger } from './run-ledger.js';

// Every call that bills goes through here: the document path's upload (./upload-step.ts) and the
// segment path's text requests (../segments/segment-job.ts). One attempt of a job is one upload, or
// the text requests of one drive of a segment job. The protocol of each call, in order:
//   1. reserve what it may bill against the budget caps (a refusal stops the run's uploads);
//   2. send nothing while the state cannot record it (PostgreSQL away);
//   3. send it with the run's send signal: uploads that stop while it waits to leave (in the rate
//      limiter, between retries) end it unsent;
//   4. record it as sent once, as its bytes leave (the client's beforeSend): the attempt's first
//      call counts the attempt on the job row;
//   5. a failure is read by one rule (./call-failure.ts): what is not known to be refused may have
//      been billed; its record is removed (surely not taken) or kept (maybe taken).
// Before the attempt's first call leaves (after the rate limits, as its bytes are about to go), the
// state is asked whether another worker failed, delivered or took the output since this run planned
// it (JobLedger.sincePlan): then nothing is sent (`ended-elsewhere`). One that finds it only after
// its call left (two workers that raced past the check) lists the call as possibly billed twice.

/** Why a job is uploaded again: a lost download, a crash after the upload left, a lost answer. */
export type Reupload = 'lost-download' | 'unconfirmed-upload' | 'lost-answer';

/** The job a call is made for, as its drive holds it: the attempt keeps `job` up to date. */
export interface BilledJob {
  job: JobRecord;
  reupload: Reupload | undefined;
}

export interface BilledCallDeps {
  control: RunControl;
  /** The one writer of job rows. */
  ledger: RunLedger;
  report: LiveSummary;
  runId: number;
  maxAttempts: number;
  /** service.retry_unanswered_uploads: a call whose answer was lost is sent again this run. */
  retryUnanswered: boolean;
  /** The budget caps during the run (none set: absent). */
  guard?: SpendGuard;
  /** Several workers share the state: its pause (database away) applies. */
  shared?: SharedWork;
}

/** What a method records of each call besides the attempt (the segment path's text_requests). */
export interface CallRecord {
  /** The call leaves: recorded as sent (from here it may be billed). */
  sent(): Promise<void>;
  /** The call was recorded as sent and surely did not reach the service: its record goes. */
  notTaken(): Promise<void>;
  /** The call was recorded as sent and may have been billed; its answer is lost: kept as such. */
  lost(): Promise<void>;
}

/** What a billed call needs: how to send it, and what it may bill. */
export interface BilledCall<T> {
  send(options: Required<CallOptions>): Promise<T>;
  /** What the call bills at most; counted as spent once it left, unless surely not taken. */
  characters: number;
  record?: CallRecord;
  /**
   * Asked as the call's bytes are about to leave (after the rate limits, its body open): false
   * withdraws it unsent and unrecorded (the caller's check that it sends what was planned).
   */
  sendable?: () => Promise<boolean>;
}

/** Thrown from beforeSend when the caller withdraws its call (BilledCall.sendable). */
const WITHDRAWN = new Error('the call was withdrawn before its bytes left');
/** Thrown from beforeSend when another worker ended the output since the plan (JobLedger.sincePlan). */
const ENDED_ELSEWHERE = new Error('another worker ended this output since it was planned');

/**
 * How a billed call ended:
 * - `answered`: the service answered (recorded as sent);
 * - `unsent`: uploads stopped before it left (a stop, the quota, a budget cap, the key refused);
 * - `withdrawn`: the caller's check refused it as it was about to leave (BilledCall.sendable);
 * - `ended-elsewhere`: another worker failed, delivered or took the output since this run planned
 *   it (`found`: its job); nothing was sent;
 * - `not-taken`: the service surely did not take it, for now (the next run tries again);
 * - `failed`: the service refused it (the quota, the key, a bad request);
 * - `maybe-taken`: it may have been billed and its answer is lost (`failure.again`: sent again
 *   later in this run and listed as possibly billed twice);
 * - `taken-over`: its record was refused, another worker holds the job now (`answer`: the service
 *   answered before that, so it was billed).
 */
export type BilledOutcome<T> =
  | { kind: 'answered'; answer: T }
  | { kind: 'unsent' }
  | { kind: 'withdrawn' }
  | { kind: 'ended-elsewhere'; found: JobSincePlan }
  | { kind: 'not-taken' | 'failed' | 'maybe-taken'; failure: CallFailure; error: unknown }
  | { kind: 'taken-over'; err: HeldByOtherWorkerError; answer?: T };

/** How a method speaks of its calls, in the log and in the messages of a stop. */
export interface CallWords {
  /** Logged as an attempt's first call leaves. */
  leaving: string;
  /** What a stop of the quota or a budget leaves running on this path. */
  afterStop: string;
  /** What a budget's stop names as the call it refused: "upload", "document's text requests". */
  call: string;
}

export class BilledAttempt {
  private startedFlag = false;
  private starting: Promise<void> | undefined;
  private spentFlag = 0;
  private raceChecked = false;

  constructor(
    private readonly deps: BilledCallDeps,
    private readonly on: BilledJob,
    private readonly words: CallWords,
    private readonly log: () => Logger,
  ) {}

  /** A call of this attempt left: the job row counts the attempt (uploadStarted). */
  get started(): boolean {
    return this.startedFlag;
  }

  /** Characters of this attempt's calls that left and were not surely refused: what may be billed. */
  get spent(): number {
    return this.spentFlag;
  }

  /**
   * Reserve `characters` against the budget caps before the calls that may bill them. A cap they
   * would exceed stops the run's uploads (false: nothing reserved, nothing may be sent).
   */
  async reserve(characters: number): Promise<boolean> {
    const over = await this.deps.guard?.reserve(this.on.job.id, characters);
    if (!over) return true;
    this.deps.control.stopForBudget(over, characters, this.words);
    return false;
  }

  /** Make one billed call (reserved before: reserve()). */
  async call<T>(c: BilledCall<T>): Promise<BilledOutcome<T>> {
    const { control, shared } = this.deps;
    // Nothing is sent while the state cannot record it (PostgreSQL away).
    while (shared?.paused && !control.uploadsStopped) await sleep(250);
    if (control.uploadsStopped) return { kind: 'unsent' };
    // Recorded once: a retry of a call surely not taken is the same call. A record refused in
    // beforeSend ends the call before its bytes leave: the client throws that very error.
    let leaving: Promise<void> | undefined;
    let refusal: unknown;
    const leaves = (): Promise<void> =>
      (leaving ??= this.leaves(c).catch((err: unknown) => {
        refusal = err;
        throw err;
      }));
    const options = control.sendOptions(leaves);
    const sendable = c.sendable;
    let endedBy: JobSincePlan | undefined;
    let answer: T;
    try {
      answer = await c.send({
        ...options,
        beforeSend: async () => {
          // A retry of a call that left is the same call: checked once, before the first try.
          if (!leaving && !this.starting) {
            endedBy = await this.deps.ledger.sincePlan(this.on.job, this.deps.runId);
            if (endedBy) throw ENDED_ELSEWHERE;
          }
          if (!leaving && sendable && !(await sendable())) throw WITHDRAWN;
          await options.beforeSend();
        },
      });
    } catch (err) {
      if (err === WITHDRAWN) return { kind: 'withdrawn' };
      if (err === ENDED_ELSEWHERE && endedBy) return { kind: 'ended-elsewhere', found: endedBy };
      if (leaving && err === refusal) return this.recordRefused<T>(err);
      if (control.endedUnsent(err)) {
        // Cut while it waited for a retry: its earlier tries were surely not taken.
        if (leaving) await this.notTaken(c);
        return { kind: 'unsent' };
      }
      // A client that does not call beforeSend (the service client does) is recorded now.
      try {
        await leaves();
      } catch (refused) {
        return this.recordRefused<T>(refused);
      }
      const outcome = await this.failed(c, err);
      if (outcome.kind === 'maybe-taken') await this.racedAfterSending();
      return outcome;
    }
    try {
      await leaves();
    } catch (refused) {
      return this.recordRefused(refused, answer);
    }
    await this.racedAfterSending();
    return { kind: 'answered', answer };
  }

  /**
   * The attempt's first call left and may have been billed: another worker that came to the same
   * output at the same moment passed the check before it too (nothing orders two workers' checks
   * on a state without claims). Asked once an attempt: such a repeat is listed as possibly billed twice.
   */
  private async racedAfterSending(): Promise<void> {
    if (this.raceChecked || !this.startedFlag) return;
    this.raceChecked = true;
    const found = await this.deps.ledger.sincePlan(this.on.job, this.deps.runId);
    if (found) this.deps.report.unconfirmedUpload(refOfJob(this.on.job), 'raced');
  }

  /**
   * This attempt has a share of a call another job's attempt makes (texts of several jobs in one
   * request, ../segments/batch-pool.ts), about to leave: the attempt starts (its row counts it)
   * before that call's record is written.
   */
  async joins(): Promise<void> {
    await (this.starting ??= this.starts());
  }

  /**
   * That shared call was recorded as sent with this attempt's share of `characters` (negative:
   * it surely did not reach the service after all, and its record went).
   */
  shared(characters: number): void {
    this.spentFlag += characters;
  }

  private async failed<T>(c: BilledCall<T>, err: unknown): Promise<BilledOutcome<T>> {
    const failure = callFailure(err, this.on.job.attempts < this.deps.maxAttempts, this.deps.retryUnanswered);
    this.deps.control.stopOnRefusal(failure.stopUploads, err as Error, this.words.afterStop);
    if (failure.verdict === 'maybe-taken') await c.record?.lost();
    else await this.notTaken(c);
    return { kind: failure.verdict, failure, error: err };
  }

  private async notTaken<T>(c: BilledCall<T>): Promise<void> {
    await c.record?.notTaken();
    this.spentFlag -= c.characters;
  }

  /** The call leaves: the attempt starts with its first call; the call is recorded as sent. */
  private async leaves<T>(c: BilledCall<T>): Promise<void> {
    await (this.starting ??= this.starts());
    await c.record?.sent();
    this.spentFlag += c.characters;
  }

  /**
   * The attempt's first call leaves (the rate limits let it go): the row counts an attempt (a lost
   * download's re-upload none), and it is reported. Not before: one still waiting in the limiter
   * when the run is killed or stopped has sent nothing, so nothing of it is possibly billed.
   */
  private async starts(): Promise<void> {
    const reupload = this.on.reupload;
    this.on.job = await this.deps.ledger.uploadStarted(
      this.on.job,
      this.deps.runId,
      reupload === 'lost-download' ? 'lost-download' : undefined,
    );
    this.startedFlag = true;
    const job = this.on.job;
    const attempt = job.attempts;
    // Possibly billed twice from here on (the summary lists it; the job row counts it already).
    if (reupload === 'lost-answer') this.deps.report.unconfirmedUpload(refOfJob(job), 'lost-answer');
    this.deps.report.events.emit('job:uploading', {
      ...refOfJob(job),
      attempt,
      ...(reupload ? { reupload } : {}),
    });
    this.log().info({ attempt, reupload }, this.words.leaving);
  }

  /**
   * The state refused to record the call: another worker took the job over (this one stalled past
   * its lease). Answered before that, it was billed: counted so by the budget. Any other error of
   * the state is the run's.
   */
  private recordRefused<T>(err: unknown, answer?: T): BilledOutcome<T> {
    if (!(err instanceof HeldByOtherWorkerError)) throw err;
    if (answer === undefined) return { kind: 'taken-over', err };
    this.deps.guard?.possiblyBilled(this.on.job.id);
    return { kind: 'taken-over', err, answer };
  }
}
