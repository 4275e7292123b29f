import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { registerEventLoopLag } from './event-loop-lag.js';

/** How often the event loop lag is sampled (prom-client's default of every 10 ms alone costs ~0.75% of a core). */
const LAG_RESOLUTION_MS = 1000;
import type { SyncEvents } from '../sync/events.js';
import type { LedgerRow } from '../report/run-so-far.js';

// Prometheus metrics of a watch process, in a registry of its own (several can live in one
// process: tests), fed by the sync events; and the optional HTTP port serving /healthz and /metrics.

export interface HealthSource {
  /** Files waiting for their stability check or to be handed to the engine, plus jobs not finished. */
  queueDepth(): number;
  /** Native watches held (one per source folder; 0 when polling). */
  watches(): number;
  /** How the last finished run ended, and what to do (read from the state's runs). */
  lastOutcome?(): LastOutcome | null;
  /**
   * What this process's runs billed, uploaded and sent, from the state's ledger (the rows `status`
   * and `report` add up): the billed characters, uploads and text requests of /metrics.
   */
  ledger?(runIds: readonly number[]): Promise<LedgerRow[]>;
}

/** The last finished run as /healthz and the metrics give it (see RunOutcomeView in src/report). */
export interface LastOutcome {
  run: number;
  command: string;
  status: string;
  reason: string | null;
  advice: string | null;
}

export interface Health {
  ok: boolean;
  /** 'ok', or 'degraded' with every reason in `problems` (the first also as `problem`). */
  status: 'ok' | 'degraded';
  problem?: string;
  problems: string[];
  manifest_rejected: string | null;
  watcher_problems: string[];
  uploads_stopped: string | null;
  /** How the last finished run ended (before this one: a restart says how the previous stop went). */
  last_outcome: LastOutcome | null;
  last_successful_poll: string | null;
  queue_depth: number;
  watched_folders: number;
  uptime_seconds: number;
}

export class WatchMetrics {
  readonly registry = new Registry();
  readonly startedAt = Date.now();
  /** Last status poll or download that answered (ms since the epoch). */
  lastPollMs: number | undefined;
  private readonly filesSeen: Counter;
  private readonly jobs: Counter<'status'>;
  private readonly uploads: Counter;
  private readonly retries: Counter<'method'>;
  private readonly errors: Counter<'kind'>;
  private readonly inFlight = new Set<number>();
  /** The runs this process started (a watch session, and one after each manifest reload). */
  private readonly runIds: number[] = [];
  /** Why uploads are stopped in the current run (quota used up, key refused), if they are. */
  private uploadsStopped: string | undefined;
  /** The first error of the last manifest edit, while it is rejected (the previous one runs). */
  private manifestRejected: string | undefined;
  /** Why events may be missed or deletions are held (watch limit, source folder away). */
  private watcherProblems: string[] = [];

  /**
   * `processMetrics`: also the process's CPU, memory and event loop lag (only when served: the lag
   * monitor wakes the process up; sampled once a second, as prom-client's default of every 10 ms
   * alone costs ~0.75% of a core in an idle watcher).
   */
  constructor(
    private readonly health: HealthSource,
    opts: { processMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    if (opts.processMetrics !== false) {
      collectDefaultMetrics({
        register: this.registry,
        prefix: 'locsync_',
        eventLoopMonitoringPrecision: LAG_RESOLUTION_MS,
      });
      registerEventLoopLag(this.registry, 'locsync_', LAG_RESOLUTION_MS);
    }
    this.filesSeen = new Counter({
      name: 'locsync_files_seen_total',
      help: 'Source files looked at (scans and file events)',
      registers,
    });
    this.jobs = new Counter({
      name: 'locsync_jobs_total',
      help: 'Job state changes by status (queued, uploaded, done, reused, stale, lost, failed)',
      labelNames: ['status'],
      registers,
    });
    // Uploads answered, counted as they are (an upload in flight is not in the ledger until billed),
    // as the run's summary counts them.
    this.uploads = new Counter({ name: 'locsync_uploads_total', help: 'Documents uploaded', registers });
    this.retries = new Counter({
      name: 'locsync_retries_total',
      help: 'Requests to the service retried by the client',
      labelNames: ['method'],
      registers,
    });
    this.errors = new Counter({
      name: 'locsync_errors_total',
      help: 'Failed jobs and skipped files by kind',
      labelNames: ['kind'],
      registers,
    });
    // Read from the ledger at each scrape (one query per run of this process): what the service
    // billed, documents quarantined, possibly billed uploads and text requests included, the same
    // figures as `status` and `report`.
    const ledger = async () => (this.runIds.length ? ((await this.health.ledger?.(this.runIds)) ?? []) : []);
    const fromLedger = (name: string, help: string, value: (r: LedgerRow) => number, labelled: boolean) =>
      new Counter({
        name,
        help,
        labelNames: labelled ? ['mapping', 'lang'] : [],
        registers,
        async collect() {
          const rows = await ledger();
          this.reset();
          if (!labelled) this.inc(rows.reduce((n, r) => n + value(r), 0));
          else for (const r of rows) this.inc({ mapping: r.mapping, lang: r.target_lang }, value(r));
        },
      });
    fromLedger(
      'locsync_billed_characters_total',
      "Characters the service billed for this process's runs (documents, possibly billed uploads, text requests), by mapping and target language, from the state's ledger",
      (r) => r.billed,
      true,
    );
    fromLedger(
      'locsync_text_requests_total',
      'Text requests sent (method: segments), each billed, from the ledger',
      (r) => r.text_requests,
      false,
    );
    const queueDepth = () => this.health.queueDepth();
    const lastPoll = () => (this.lastPollMs ? this.lastPollMs / 1000 : 0);
    new Gauge({
      name: 'locsync_queue_depth',
      help: 'Files waiting to be checked or handed over, plus jobs not finished',
      registers,
      collect() {
        this.set(queueDepth());
      },
    });
    const flag = (name: string, help: string, on: () => boolean) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(on() ? 1 : 0);
        },
      });
    flag(
      'locsync_manifest_rejected',
      '1 while the last manifest edit is rejected',
      () => !!this.manifestRejected,
    );
    flag(
      'locsync_watcher_degraded',
      '1 while events may be missed or deletions are held (watch limit, source folder away)',
      () => this.watcherProblems.length > 0,
    );
    flag(
      'locsync_uploads_stopped',
      '1 while uploads are stopped (key refused, quota used up, shutting down)',
      () => !!this.uploadsStopped,
    );
    flag('locsync_healthy', '1 when /healthz answers ok', () => this.healthz().ok);
    const lastOutcome = () => this.health.lastOutcome?.() ?? null;
    new Gauge({
      name: 'locsync_last_run_outcome',
      help: '1 for how the last finished run ended: command, status (ok, failed, interrupted, stopped: a watch ended by a signal, crashed; a run skipped for the lock is not counted) and reason (documents-failed, drift, auth, quota, budget, lock, signal, config, internal; none)',
      labelNames: ['command', 'status', 'reason'],
      registers,
      collect() {
        this.reset();
        const o = lastOutcome();
        if (o) this.set({ command: o.command, status: o.status, reason: o.reason ?? 'none' }, 1);
      },
    });
    const watches = () => this.health.watches();
    new Gauge({
      name: 'locsync_watched_folders',
      help: 'Native watches held (one per source folder; 0 when polling)',
      registers,
      collect() {
        this.set(watches());
      },
    });
    new Gauge({
      name: 'locsync_last_successful_poll_timestamp_seconds',
      help: 'When a status poll or download last answered (0: never)',
      registers,
      collect() {
        this.set(lastPoll());
      },
    });
  }

  /** Jobs queued and not yet finished (part of the queue depth). */
  jobsInFlight(): number {
    return this.inFlight.size;
  }

  fileSeen(n = 1): void {
    this.filesSeen.inc(n);
  }

  retried(method: string): void {
    this.retries.inc({ method });
  }

  /** Count what the engine reports. */
  observe(events: SyncEvents): void {
    const polled = () => (this.lastPollMs = Date.now());
    events.on('scan:done', (e) => this.fileSeen(e.files));
    events.on('job:queued', (e) => {
      this.jobs.inc({ status: 'queued' });
      if (e.jobId) this.inFlight.add(e.jobId);
    });
    events.on('job:uploaded', () => {
      this.jobs.inc({ status: 'uploaded' });
      this.uploads.inc();
    });
    events.on('job:translating', polled);
    events.on('job:downloading', polled);
    events.on('job:done', (e) => {
      polled();
      this.jobs.inc({ status: 'done' });
      this.inFlight.delete(e.jobId);
    });
    events.on('job:reused', () => this.jobs.inc({ status: 'reused' }));
    events.on('job:stale', () => this.jobs.inc({ status: 'stale' }));
    events.on('job:lost', () => this.jobs.inc({ status: 'lost' }));
    events.on('job:failed', (e) => {
      this.jobs.inc({ status: 'failed' });
      this.errors.inc({ kind: e.kind });
      this.inFlight.delete(e.jobId);
    });
    events.on('job:left', (e) => this.inFlight.delete(e.jobId));
    events.on('file:skipped', (e) => {
      if (e.reason !== 'unsupported') this.errors.inc({ kind: e.reason });
    });
    events.on('run:start', (e) => {
      this.uploadsStopped = undefined;
      if (!this.runIds.includes(e.runId)) this.runIds.push(e.runId);
    });
    events.on('uploads:stopped', (e) => (this.uploadsStopped = e.reason));
  }

  setManifestRejected(firstError: string | undefined): void {
    this.manifestRejected = firstError;
  }

  setWatcherProblems(problems: string[]): void {
    this.watcherProblems = problems;
  }

  /**
   * Degraded (ok false) while the last manifest edit is rejected, the watcher may miss events or
   * holds deletions, or uploads are stopped (key refused, quota used up, shutting down).
   */
  healthz(): Health {
    const problems = [
      ...(this.manifestRejected ? [`manifest edit rejected: ${this.manifestRejected}`] : []),
      ...this.watcherProblems,
      ...(this.uploadsStopped ? [`uploads stopped: ${this.uploadsStopped}`] : []),
    ];
    return {
      ok: problems.length === 0,
      status: problems.length ? 'degraded' : 'ok',
      ...(problems.length ? { problem: problems[0] } : {}),
      problems,
      manifest_rejected: this.manifestRejected ?? null,
      watcher_problems: this.watcherProblems,
      uploads_stopped: this.uploadsStopped ?? null,
      last_outcome: this.health.lastOutcome?.() ?? null,
      last_successful_poll: this.lastPollMs ? new Date(this.lastPollMs).toISOString() : null,
      queue_depth: this.health.queueDepth(),
      watched_folders: this.health.watches(),
      uptime_seconds: Math.round((Date.now() - this.startedAt) / 1000),
    };
  }
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serve GET /healthz (JSON) and GET /metrics (Prometheus text) on host:port; `page` answers the
 * other paths it knows (the status page), returning false for the rest.
 */
export async function startMetricsServer(
  metrics: WatchMetrics,
  opts: { host: string; port: number },
  page?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean,
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url === '/healthz') {
      const h = metrics.healthz();
      res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(h));
      return;
    }
    if (url === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
      );
      return;
    }
    if (page?.(req, res)) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /, /healthz or /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
