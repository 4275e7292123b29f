import { describe, expect, it } from 'vitest';
import { nextPollDelay, pollTiming } from '../../src/sync/timing.js';

describe('poll timing', () => {
  const t = pollTiming({}, {});
  it('starts around a second and grows x1.5 up to the cap without a hint', () => {
    let d = t.initialMs;
    const seen = [d];
    for (let i = 0; i < 10; i++) seen.push((d = nextPollDelay(t, d).delayMs));
    expect(seen.slice(0, 3)).toEqual([1000, 1500, 2250]);
    expect(Math.max(...seen)).toBe(t.maxMs);
  });
  it('follows seconds_remaining as a hint, clamped to the cap (2^27 never delays beyond it)', () => {
    expect(nextPollDelay(t, 1000, 3).delayMs).toBe(3000 + t.hintSlackMs);
    expect(nextPollDelay(t, 1000, 2 ** 27).delayMs).toBe(t.maxMs);
    expect(nextPollDelay(t, 1000, 0).delayMs).toBe(t.minMs);
  });
  it('backs off when a hint did not come true', () => {
    const first = nextPollDelay(t, 1000, 1);
    expect(first.hinted).toBe(true);
    const second = nextPollDelay(t, first.delayMs, 1, first.hinted);
    expect(second.delayMs).toBeGreaterThan(first.delayMs);
  });
  it('takes overrides from the environment (tests)', () => {
    const e = pollTiming(
      {},
      { LOCSYNC_POLL_INITIAL_MS: '40', LOCSYNC_POLL_MAX_MS: '200', LOCSYNC_POLL_MIN_MS: '20' },
    );
    expect([e.initialMs, e.maxMs, e.minMs]).toEqual([40, 200, 20]);
  });
});
