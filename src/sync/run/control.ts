import { setMaxListeners } from 'node:events';
import { describeReached, type CapExceeded } from '../../billing/budget.js';
import { formatCharacters } from '../../billing/money.js';
import type { CallOptions } from '../../api/transport.js';
import type { FailureKind } from '../events.js';
import { isAbort } from './poll.js';
import type { LiveSummary } from './live-summary.js';

// Whether a run may still upload, and why not: quota, a budget cap, a refused key, a stop. A stop ends uploads for
// the rest of the run (jobs already uploaded are still collected); a refused key also ends polling and
// is the run's fatal error.

export class RunControl {
  uploadsStopped: { reason: string; kind: FailureKind } | undefined;
  fatal: Error | undefined;
  /** Stopped by a signal (stop()): work not finished is left for the next run, not failed. */
  stopping = false;
  /** Ends the shutdown grace early (a second Ctrl-C: stop waiting for translations). */
  readonly graceOver = new AbortController();
  /** Aborts every wait for a next poll. */
  readonly pollAbort = new AbortController();
  /**
   * Aborted when uploads stop: an upload still waiting to leave (in the rate limiter, for the
   * account's token, between retries) ends unsent; one already sending is never cut.
   */
  readonly sendAbort = new AbortController();
  private readonly onStop: Array<() => void> = [];

  constructor(
    private readonly report: LiveSummary,
    /** Environment variable of the API key (named in the message of a refused key). */
    private readonly keyEnv: string,
  ) {
    // Every job waiting for its next poll listens on this signal.
    setMaxListeners(0, this.pollAbort.signal);
    // So does every upload waiting to leave.
    setMaxListeners(0, this.sendAbort.signal);
  }

  /**
   * The options of a billed call (an upload, a text request): uploads that stop while it waits to
   * leave cut its wait, and an attempt the rate limits just let go is refused before `leaves` (which
   * records it as sent) and before its bytes leave.
   */
  sendOptions(leaves: () => Promise<void>): Required<CallOptions> {
    const signal = this.sendAbort.signal;
    const beforeSend = async (): Promise<void> => {
      signal.throwIfAborted();
      await leaves();
    };
    return { signal, beforeSend };
  }

  /** A billed call made with sendOptions ended with `err` because uploads stopped: nothing of it left. */
  endedUnsent(err: unknown): boolean {
    const signal = this.sendAbort.signal;
    return signal.aborted && (err === signal.reason || isAbort(err));
  }

  /** Called once when uploads stop (waiters for a download slot wake up and see it). */
  whenUploadsStop(fn: () => void): void {
    this.onStop.push(fn);
  }

  stopUploads(reason: string, kind: FailureKind): void {
    if (this.uploadsStopped) return;
    this.uploadsStopped = { reason, kind };
    this.report.uploadsStopped(reason, kind);
    this.sendAbort.abort(new UploadsStoppedError(reason));
    for (const fn of this.onStop.splice(0)) fn();
  }

  /**
   * A budget cap would be exceeded by the next billed call (`words`: how its path names it): no more
   * uploads or text requests; what is in flight is collected.
   */
  stopForBudget(over: CapExceeded, next: number, words: { call: string; afterStop: string }): void {
    this.stopUploads(
      `budget reached during the run: ${describeReached(over, next, formatCharacters, words.call)}. ${words.afterStop}`,
      'budget',
    );
  }

  /**
   * A billed call failed in a way that stops the run's uploads (uploadFailure's `stopUploads`): the
   * account's character quota used up, or the key refused. `afterwards` says what the quota's stop
   * leaves running on this path.
   */
  stopOnRefusal(stop: 'quota' | 'auth' | undefined, err: Error, afterwards: string): void {
    if (stop === 'quota')
      this.stopUploads(
        `the character quota of the account is used up (456): ${err.message}. ${afterwards}`,
        'quota',
      );
    if (stop === 'auth') this.stopForAuth(err);
  }

  /** The service refused the API key: no more uploads or polls; the run fails with it. */
  stopForAuth(err: Error): void {
    this.stopUploads(
      `the service refused the API key (${err.message}): check the key in $${this.keyEnv}`,
      'auth',
    );
    this.fatal ??= err;
    this.pollAbort.abort();
  }
}

/** What ends an upload that had not left when uploads stopped: nothing of it was sent. */
export class UploadsStoppedError extends Error {
  constructor(reason: string) {
    super(`uploads stopped before this upload left: ${reason}`);
    this.name = 'UploadsStoppedError';
  }
}
