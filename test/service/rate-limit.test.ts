// The service holding each key to a rate (ServiceOptions.requestsPerSecond, `serve
// --requests-per-second`): beyond it 429 with Retry-After, as the real service answers a client
// that sends too fast.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { KeyRateLimit } from '../../src/local-service/rate-limit.js';
import { call, start } from './helpers.js';

const RATE = 5;
const auth = (key: string) => ({ Authorization: `Service-Auth-Key ${key}` });

describe('a rate limit per key', () => {
  it('answers 429 with Retry-After beyond the rate, per key, and takes the key again once it waited', async () => {
    // No accepted key set: any key goes, each with its own bucket.
    const s = await start({ authKey: undefined, requestsPerSecond: RATE });
    const began = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 30 }, () =>
        call<{ code: string }>(s, 'GET', '/v2/usage', undefined, auth('key-a')),
      ),
    );
    const seconds = (performance.now() - began) / 1000;
    const ok = burst.filter((r) => r.status === 200).length;
    const refused = burst.filter((r) => r.status === 429);
    // A full bucket at the start, refilled at RATE a second while the burst was answered.
    expect(ok).toBeGreaterThanOrEqual(RATE);
    expect(ok).toBeLessThanOrEqual(RATE + Math.ceil(seconds * RATE));
    expect(refused.length).toBe(30 - ok);
    for (const r of refused) {
      expect(r.body.code).toBe('too_many_requests');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Another key is not slowed by the first one.
    expect((await call(s, 'GET', '/v2/usage', undefined, auth('key-b'))).status).toBe(200);
    // The request log shows the refusals as the client saw them.
    expect(s.requests().filter((e) => e.status === 429)).toHaveLength(refused.length);
    await sleep(Number(refused[0]!.headers.get('retry-after')) * 1000);
    expect((await call(s, 'GET', '/v2/usage', undefined, auth('key-a'))).status).toBe(200);
  });

  it('has no limit unless one is set', async () => {
    const s = await start();
    const burst = await Promise.all(Array.from({ length: 60 }, () => call(s, 'GET', '/v2/usage')));
    expect(burst.every((r) => r.status === 200)).toBe(true);
  });

  it('lets a key through once every 1/rate seconds at a rate below 1 a second', () => {
    const limit = new KeyRateLimit(0.5);
    expect(limit.take('key-a')).toBe(0);
    // The next token is two seconds away.
    expect(limit.take('key-a')).toBe(2);
    expect(limit.take('key-b')).toBe(0);
    expect(() => new KeyRateLimit(0)).toThrow(RangeError);
  });
});
