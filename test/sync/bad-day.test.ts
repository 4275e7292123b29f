import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './fixture.js';

// A bad day of the service: seconds_remaining of 2^27, 429 with Retry-After, 5xx, dropped
// connections. Every document arrives exactly once, and an absurd estimate never holds a poll back.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** Status polls (POST /v2/document/<id>) in the request log. */
function statusPolls(f: Fixture): number {
  return f.service.requests().filter((r) => r.method === 'POST' && /^\/v2\/document\/[^/]+$/.test(r.path))
    .length;
}

describe('a bad day of the service', () => {
  it('ignores an absurd seconds_remaining: polls as without a hint instead of waiting the cap', async () => {
    const files = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`doc${i}.txt`, `Text ${i}.\n`]));
    fx = await createFixture({
      files,
      service: {
        // Long enough that each document is still translating at its first poll (30 ms after its
        // upload) even on a loaded machine: that poll is the one answered with the absurd hint.
        translateSeconds: 2,
        faults: [{ match: { path: '/v2/document/' }, absurdSecondsRemaining: true }],
      },
    });
    // A cap of ten minutes: a poll that waited for it (the 2^27 clamped) would never finish here.
    const summary = await fx.sync({ poll: { initialMs: 30, minMs: 10, maxMs: 600_000 } });
    expect(summary.translated).toBe(8);
    expect(fx.service.requests().some((r) => r.fault?.includes('absurd-eta'))).toBe(true);
    // Each document was still translating at its first poll, then polled again.
    expect(statusPolls(fx)).toBeGreaterThanOrEqual(8 * 2);
  }, 30_000);

  it('delivers every document exactly once through absurd hints, 429s, 5xx and drops', async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`doc${i}.txt`, `Text ${i}.\n`]));
    fx = await createFixture({
      files,
      service: {
        translateSeconds: 0.3,
        faults: [
          { match: { path: '/v2/document/' }, absurdSecondsRemaining: true, probability: 0.5 },
          { status: 429, retryAfter: 1, count: 1e9, probability: 0.05 },
          { status: 503, count: 1e9, probability: 0.1 },
          { drop: 1e9, probability: 0.03 },
        ],
      },
    });
    let summary = await fx.sync({ poll: { initialMs: 30, minMs: 10, maxMs: 600_000 } });
    // A request that failed all its retries leaves its document for the next run (resumed, not re-sent).
    for (let run = 0; run < 3 && summary.failed.length > 0; run++)
      summary = await fx.sync({ poll: { initialMs: 30, minMs: 10, maxMs: 600_000 } });
    expect(summary.failed).toEqual([]);
    const faults = fx.service.requests().map((r) => r.fault ?? '');
    expect(faults.some((f) => f.includes('status:503'))).toBe(true);
    expect(faults.some((f) => f.includes('absurd-eta'))).toBe(true);
    for (let i = 0; i < 12; i++) {
      expect(fx.read(`out/de/doc${i}.txt`)).not.toBe('');
      expect(fx.exists(`out/fr/doc${i}.txt`)).toBe(true);
    }
    // Exactly once: each (file, target) accepted by the service one time.
    const accepted = fx.uploads().map((u) => `${u.filename} ${u.target_lang}`);
    expect(accepted.sort()).toEqual([...new Set(accepted)].sort());
    expect(accepted).toHaveLength(24);
  }, 120_000);
});
