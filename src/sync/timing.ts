// Poll timing. Status polls start around 1 s and grow ×1.5 up to a cap (~15 s). The service's
// seconds_remaining is only a hint: a plausible one is followed (clamped between the minimum and the
// cap), so that on a calm service a slot is free the moment its document is done. A hint beyond any
// plausible job (the real service answers 2^27 at times) or one that did not come true is ignored:
// polling then goes on as without a hint, rather than waiting out the cap on a number that means
// nothing. Overridable for tests (options or LOCSYNC_POLL_* env). The segment path's wait for
// another worker's segments polls the memory: how long it waits is here too.

export interface PollTiming {
  /** Delay before the first status poll after an upload, ms. */
  initialMs: number;
  factor: number;
  /** Longest delay between polls, ms. */
  maxMs: number;
  /** Shortest delay between polls, ms (also the floor of a seconds_remaining hint). */
  minMs: number;
  /**
   * Added to a seconds_remaining hint, ms. The local service rounds the time left up, so the hint is
   * already an upper bound when the answer arrives: the slack only covers a timer firing a little
   * early. Every ms here is a ms a pool slot waits after the document is done.
   */
  hintSlackMs: number;
  /** A seconds_remaining above this is not an estimate (no document takes an hour): ignored. */
  maxHintSeconds: number;
  /**
   * The segment path: a job waiting for segments another live worker of the pipeline is sending
   * stops waiting when none of them was answered for this long, ms (docs/segments.md).
   */
  segmentStallMs: number;
}

export const DEFAULT_POLL: PollTiming = {
  initialMs: 1000,
  factor: 1.5,
  maxMs: 15_000,
  minMs: 250,
  hintSlackMs: 5,
  maxHintSeconds: 3600,
  segmentStallMs: 5 * 60_000,
};

/** DEFAULT_POLL overridden by LOCSYNC_POLL_INITIAL_MS / _MAX_MS / _MIN_MS / _FACTOR and `over`. */
export function pollTiming(over: Partial<PollTiming> = {}, env: NodeJS.ProcessEnv = process.env): PollTiming {
  const num = (v: string | undefined) =>
    v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
  const fromEnv: Partial<PollTiming> = {};
  const pairs: Array<[keyof PollTiming, string]> = [
    ['initialMs', 'LOCSYNC_POLL_INITIAL_MS'],
    ['maxMs', 'LOCSYNC_POLL_MAX_MS'],
    ['minMs', 'LOCSYNC_POLL_MIN_MS'],
    ['factor', 'LOCSYNC_POLL_FACTOR'],
  ];
  for (const [k, name] of pairs) {
    const v = num(env[name]);
    if (v !== undefined) fromEnv[k] = v;
  }
  const t = {
    ...DEFAULT_POLL,
    ...fromEnv,
    ...Object.fromEntries(Object.entries(over).filter(([, v]) => v !== undefined)),
  };
  t.minMs = Math.min(t.minMs, t.maxMs);
  t.initialMs = Math.min(Math.max(t.initialMs, 0), t.maxMs);
  return t;
}

/**
 * The delay before the next poll: the service's seconds_remaining hint clamped to [minMs, maxMs], or
 * else the last delay grown ×factor. The hint is ignored when it is absurd (above maxHintSeconds, not
 * a number, negative) or when the previous wait already followed a hint and the document is still not
 * done: that hint did not come true, so this one is not trusted either.
 */
export function nextPollDelay(
  t: PollTiming,
  previousMs: number,
  secondsRemaining?: number,
  previousWasHint = false,
): { delayMs: number; hinted: boolean } {
  const grown = Math.min(t.maxMs, Math.max(t.minMs, previousMs * t.factor));
  if (
    previousWasHint ||
    secondsRemaining === undefined ||
    !Number.isFinite(secondsRemaining) ||
    secondsRemaining < 0 ||
    secondsRemaining > t.maxHintSeconds
  )
    return { delayMs: grown, hinted: false };
  return {
    delayMs: Math.min(t.maxMs, Math.max(t.minMs, secondsRemaining * 1000 + t.hintSlackMs)),
    hinted: true,
  };
}
