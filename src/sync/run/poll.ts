import { setTimeout as sleep } from 'node:timers/promises';
import { UnreadableAnswerError } from '../../api/errors.js';
import type { DocumentStatus } from '../../api/types.js';
import type { Logger } from '../../log/logger.js';
import { nextPollDelay, type PollTiming } from '../timing.js';

// Waiting for a translation: status polls spaced by the poll timing until the document is done or in
// error. The service's seconds_remaining is a hint: followed within the timing's bounds when it is
// plausible, ignored when it is absurd or proved untrue (../timing.ts).

export interface PollArgs {
  getStatus: () => Promise<DocumentStatus>;
  timing: PollTiming;
  signal: AbortSignal;
  /** A resumed document may have been done for hours: ask at once. */
  askAtOnce: boolean;
  onWaiting: (status: 'queued' | 'translating', secondsRemaining: number | undefined) => void;
  log: Logger;
}

/**
 * Status answers in a row that hold no status this client knows (a 200 of `{}` or of nothing, a
 * proxy's JSON or page, a body cut short) before the polling gives up: polled for ever, such a job
 * would hold its place and the run; failed at the first, one proxy's hiccup would cost the run it.
 */
export const UNREADABLE_STATUS_LIMIT = 10;

const KNOWN_STATUS = new Set(['queued', 'translating', 'done', 'error']);

/** The service kept answering status checks with nothing this client can read as a status. */
export class UnreadableStatusError extends Error {
  constructor(last: string) {
    super(
      `the service answered ${UNREADABLE_STATUS_LIMIT} status checks in a row without a status this client can read (the last: ${last})`,
    );
    this.name = 'UnreadableStatusError';
  }
}

export async function pollUntilFinished(a: PollArgs): Promise<DocumentStatus> {
  let delay = a.timing.initialMs;
  let hinted = false;
  let wait = a.askAtOnce ? 0 : delay;
  let unreadable = 0;
  for (;;) {
    if (a.signal.aborted) throw Object.assign(new Error('stopped'), { name: 'AbortError' });
    await sleep(wait, undefined, { signal: a.signal });
    const st = await a.getStatus().catch((err: unknown) => {
      // A 2xx the client could not read (not JSON, empty, no status): as unreadable as an unknown status.
      if (err instanceof UnreadableAnswerError) return { unreadable: err.message };
      throw err;
    });
    if (!('status' in st) || !KNOWN_STATUS.has(st.status)) {
      const answer = 'status' in st ? JSON.stringify(st).slice(0, 200) : st.unreadable;
      if (++unreadable >= UNREADABLE_STATUS_LIMIT) throw new UnreadableStatusError(answer);
      a.log.warn({ answer }, 'a status answer without a status: asked again');
      delay = nextPollDelay(a.timing, delay, undefined, hinted).delayMs;
      wait = delay;
      continue;
    }
    unreadable = 0;
    if (st.status === 'done' || st.status === 'error') return st;
    const sr = st.status === 'translating' ? st.seconds_remaining : undefined;
    a.onWaiting(st.status, sr);
    const next = nextPollDelay(a.timing, delay, sr, hinted);
    a.log.debug(
      { status: st.status, seconds_remaining: sr, next_poll_ms: Math.round(next.delayMs) },
      'waiting for the translation',
    );
    delay = next.delayMs;
    wait = delay;
    hinted = next.hinted;
  }
}

export function isAbort(err: unknown): boolean {
  return (err as { name?: string }).name === 'AbortError';
}
