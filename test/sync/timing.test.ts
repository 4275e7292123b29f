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
  it('follows a plausible seconds_remaining as a hint, clamped to [min, cap]', () => {
    expect(nextPollDelay(t, 1000, 3)).toEqual({ delayMs: 3000 + t.hintSlackMs, hinted: true });
    expect(nextPollDelay(t, 1000, 0).delayMs).toBe(t.minMs);
    expect(nextPollDelay(t, 1000, 1800)).toEqual({ delayMs: t.maxMs, hinted: true });
  });
  it('ignores an absurd seconds_remaining (2^27, over an hour, negative, NaN): polls as without a hint', () => {
    for (const absurd of [2 ** 27, 3601, -1, Number.NaN, Infinity])
      expect(nextPollDelay(t, 1000, absurd)).toEqual(nextPollDelay(t, 1000));
    expect(nextPollDelay(t, 1000, 2 ** 27)).toEqual({ delayMs: 1500, hinted: false });
  });
  it('ignores the next hint when a hint did not come true (the document is still not done)', () => {
    const first = nextPollDelay(t, 1000, 1);
    expect(first.hinted).toBe(true);
    for (const again of [1, 2, 10]) {
      const second = nextPollDelay(t, first.delayMs, again, first.hinted);
      expect(second).toEqual({ delayMs: first.delayMs * t.factor, hinted: false });
    }
  });
  it('takes overrides from the environment (tests)', () => {
    const e = pollTiming(
      {},
      { LOCSYNC_POLL_INITIAL_MS: '40', LOCSYNC_POLL_MAX_MS: '200', LOCSYNC_POLL_MIN_MS: '20' },
    );
    expect([e.initialMs, e.maxMs, e.minMs]).toEqual([40, 200, 20]);
  });
});
