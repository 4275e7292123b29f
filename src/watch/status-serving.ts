import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { StatusSource } from '../report/status-source.js';
import type { RunRecord } from '../state/types.js';
import type { SyncEvents } from '../sync/events.js';
import type { RunState } from '../sync/sync-run.js';
import { startMetricsServer, type MetricsServer, type WatchMetrics } from './metrics.js';

// What `locsync watch` shows of itself: the status page for people beside /healthz and /metrics
// (watch.metrics), and the last runs those read (other processes record runs too).

/** How often the last runs are read for /healthz and the metrics (other processes record runs). */
const RUNS_EVERY_MS = 10_000;

/** Serves the status page (/), /healthz and /metrics on watch.metrics; the page loads only then. */
export async function serveStatus(args: {
  listen: { host: string; port: number };
  metrics: WatchMetrics;
  state: RunState;
  status: StatusSource;
  manifest: () => LoadedManifest;
  events: SyncEvents;
  logger: Logger;
}): Promise<MetricsServer> {
  const [{ createStatusPage }, { RunTracker }] = await Promise.all([
    import('../web/status-page.js'),
    import('../sync/run-tracker.js'),
  ]);
  const page = createStatusPage({
    state: args.state,
    status: args.status,
    manifest: args.manifest,
    tracker: new RunTracker(args.events),
    events: args.events,
    health: () => args.metrics.healthz(),
  });
  const server = await startMetricsServer(args.metrics, args.listen, (req, res) => page.handle(req, res));
  args.logger.info({ url: server.url }, 'serving the status page (/), /healthz and /metrics');
  return server;
}

/** The last runs that ran, read again every few seconds; a failed read keeps the previous ones. */
export class LastRuns {
  runs: RunRecord[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly status: StatusSource,
    private readonly logger: Logger,
  ) {}

  /** Reads them now, then every RUNS_EVERY_MS until `stop`. */
  async start(): Promise<void> {
    await this.read();
    this.timer = setInterval(() => void this.read(), RUNS_EVERY_MS);
    this.timer.unref();
  }

  async read(): Promise<void> {
    try {
      this.runs = await this.status.lastRanRuns();
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'last runs not read');
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
