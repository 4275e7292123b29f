import { describe, expect, it } from 'vitest';
import { lagProbeFromEnv } from '../../src/watch/event-loop-lag.js';
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

describe('LOCSYNC_WATCH_LAG_LOG: the lag probe of soak runs', () => {
  it('logs the lag of each period (p50, p99, max in ms) when set, and nothing when unset', async () => {
    const lines: { obj: Record<string, number>; msg: string }[] = [];
    const logger = { info: (obj: object, msg: string) => void lines.push({ obj: obj as never, msg }) };
    const stopOff = lagProbeFromEnv(logger, {});
    const stop = lagProbeFromEnv(logger, { LOCSYNC_WATCH_LAG_LOG: '0.2' });
    // A stall of the loop the probe must see.
    await new Promise((r) => setTimeout(r, 250));
    const end = Date.now() + 60;
    while (Date.now() < end) {
      /* busy */
    }
    await new Promise((r) => setTimeout(r, 500));
    stop();
    stopOff();
    const logged = lines.filter((l) => l.msg === 'event loop lag');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    for (const l of logged)
      expect(Object.keys(l.obj).sort()).toEqual(['lag_max_ms', 'lag_p50_ms', 'lag_p99_ms']);
    expect(Math.max(...logged.map((l) => l.obj.lag_max_ms!))).toBeGreaterThanOrEqual(40);
    const n = lines.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.length).toBe(n);
  }, 20_000);
});
