import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

// The event loop's lag as /metrics gives it. Node's delay histogram records the time between two
// ticks of a timer of `resolution` ms, i.e. the resolution plus the lag: prom-client reports those
// values as they are, so at the 1 s resolution an idle watcher uses (to stay idle) its p50 "lag" read
// 1.0 s and any alert on it always fired. These gauges give the lag: what the timer came late by.

const STATS = ['min', 'max', 'mean', 'p50', 'p90', 'p99'] as const;

/** Replace prom-client's event loop lag statistics in `registry` (names `${prefix}nodejs_eventloop_lag_*_seconds`). */
export function registerEventLoopLag(registry: Registry, prefix: string, resolutionMs: number): void {
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  const resolutionNs = resolutionMs * 1e6;
  const lag = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns - resolutionNs) / 1e9 : 0);
  const stat: Record<(typeof STATS)[number], () => number> = {
    min: () => lag(h.min),
    max: () => lag(h.max),
    mean: () => lag(h.mean),
    p50: () => lag(h.percentile(50)),
    p90: () => lag(h.percentile(90)),
    p99: () => lag(h.percentile(99)),
  };
  for (const s of STATS) {
    const name = `${prefix}nodejs_eventloop_lag_${s}_seconds`;
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help: `The ${s} of the event loop lag (how late a ${resolutionMs} ms timer fired), seconds`,
      registers: [registry],
      collect() {
        this.set(stat[s]());
      },
    });
  }
}
