import { describe, expect, it } from 'vitest';
import { WatchMetrics } from '../../src/watch/metrics.js';

// An idle process has an event loop that is on time: its lag statistics are near 0, not the 1 s
// sampling interval (Node's delay histogram records the interval, lag included).

describe('/metrics: event loop lag', () => {
  it('an idle watcher reports a p50 lag near 0, not its 1 s sampling interval', async () => {
    const metrics = new WatchMetrics({ queueDepth: () => 0, watches: () => 0 });
    // A few samples of the 1 s timer, the loop idle meanwhile.
    await new Promise((r) => setTimeout(r, 3500));
    const text = await metrics.registry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    for (const s of ['p50', 'p90', 'mean', 'min']) {
      const v = value(`locsync_nodejs_eventloop_lag_${s}_seconds`);
      expect(v, s).toBeGreaterThanOrEqual(0);
      // Well under the 1 s interval a lag alert would otherwise always see.
      expect(v, s).toBeLessThan(0.5);
    }
  }, 20_000);
});
