import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

// The event loop's lag as /metrics gives it. Node's delay histogram records the time between two
// ticks of a timer of `resolution` ms, i.e. the resolution plus the lag: prom-client reports those
// values as they are, so at the 1 s resolution an idle watcher uses (to stay idle) its p50 "lag" read
// 1.0 s and any alert on it always fired. These gauges give the lag: what the timer came late by.

const STATS = ['min', 'max', 'mean', 'p50', 'p90', 'p99'] as const;

/** The lag in seconds of a histogram value `ns` of a timer of `resolutionMs`: how late it fired. */
function lagSeconds(ns: number, resolutionMs: number): number {
  return Number.isFinite(ns) ? Math.max(0, ns - resolutionMs * 1e6) / 1e9 : 0;
}

/** Replace prom-client's event loop lag statistics in `registry` (names `${prefix}nodejs_eventloop_lag_*_seconds`). */
export function registerEventLoopLag(registry: Registry, prefix: string, resolutionMs: number): void {
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  const lag = (ns: number) => lagSeconds(ns, resolutionMs);
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

/** Resolution of the lag probe's timer, ms (fine enough to see a 10 ms stall). */
const PROBE_RESOLUTION_MS = 10;

/**
 * LOCSYNC_WATCH_LAG_LOG=<seconds>: logs the event loop lag of the last so many seconds (p50, p99,
 * max in ms, then starts afresh), for soak runs (bench/watch-soak.ts) that compare the start of a
 * long watch with its end; /metrics's gauges are cumulative since the start. Off when unset.
 * Returns the function that stops it.
 */
export function lagProbeFromEnv(
  logger: { info(obj: object, msg: string): void },
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const everyS = Number(env.LOCSYNC_WATCH_LAG_LOG);
  if (!Number.isFinite(everyS) || everyS <= 0) return () => {};
  const h = monitorEventLoopDelay({ resolution: PROBE_RESOLUTION_MS });
  h.enable();
  const ms = (ns: number) => Number((lagSeconds(ns, PROBE_RESOLUTION_MS) * 1e3).toFixed(2));
  const timer = setInterval(() => {
    logger.info(
      { lag_p50_ms: ms(h.percentile(50)), lag_p99_ms: ms(h.percentile(99)), lag_max_ms: ms(h.max) },
      'event loop lag',
    );
    h.reset();
  }, everyS * 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    h.disable();
  };
}
