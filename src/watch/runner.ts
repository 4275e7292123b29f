import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError } from '../api/errors.js';
import type { Logger } from '../log/logger.js';
import { checkManifestFile } from '../manifest/load.js';
import type { LoadedManifest } from '../manifest/types.js';
import { createSyncEvents, type SyncEvents } from '../sync/events.js';
import { SyncRun, type ReconcileFn, type RunState, type SyncConnection } from '../sync/sync-run.js';
import type { StatusSource } from '../report/status-source.js';
import type { RunRecord } from '../state/types.js';
import type { PollTiming } from '../sync/timing.js';
import { manifestFiles, watchManifestFiles, type ManifestWatcher } from './manifest-watch.js';
import { lastOutcome } from '../report/advice.js';
import { billedThisMonth } from '../billing/ledger.js';
import { WatchMetrics, startMetricsServer, type MetricsServer } from './metrics.js';
import { PendingFiles, type PendingEntry } from './pending.js';
import { locate, watchedSources, type WatchedSource } from './sources.js';
import { recordedFiles } from './recorded.js';
import { InOrder } from './in-order.js';
import { HandOver } from './hand-over.js';
import { startSourceWatcher, type SourceWatcher } from './watcher.js';

// `locsync watch`: the run sequence of `sync` kept open. One SyncRun at a time does the work (the
// same planner, executor, on_source_delete and recorded uploads as `sync`); file events go through a
// pending set (coalesced by path, stability-checked) into run.scanFile. A periodic rescan and an
// applied manifest edit start a fresh run once the current one has drained (its run is recorded and
// its in-memory lists are dropped, so memory stays bounded over months).

export interface WatchEventMap {
  /** The watcher is up: initial scan done, events flowing. */
  ready: [{ metricsUrl: string | undefined }];
  'manifest:applied': [{ mappings: string[] }];
  'manifest:rejected': [{ errors: string[] }];
  rescan: [{ reason: 'periodic' | 'manifest' }];
  /** A document is held back: an editor's lock file lies beside it. */
  'file:open': [{ mapping: string; file: string; lockFile: string }];
  /** Nothing pending, nothing in flight. */
  idle: [];
}

export interface WatchArgs {
  loaded: LoadedManifest;
  /** The state the runs work with: a SQLite file, or PostgreSQL shared with other workers. */
  state: RunState;
  /** The same state as status reads it (runs, jobs, billing) for /healthz, /metrics and the page. */
  status: StatusSource;
  connection: SyncConnection;
  logger: Logger;
  events?: SyncEvents;
  /** Tests: poll timing of the engine, style reconciler. */
  poll?: Partial<PollTiming>;
  reconcile?: ReconcileFn;
}

/** How often the last runs are read for /healthz and the metrics (other processes record runs). */
const RUNS_EVERY_MS = 10_000;

/** How many files are hashed and classified at once (memory stays flat during bursts). */
const HAND_OVER_CONCURRENCY = 4;

export class WatchRunner extends EventEmitter<WatchEventMap> {
  readonly events: SyncEvents;
  readonly metrics: WatchMetrics;
  private loaded: LoadedManifest;
  private readonly state: RunState;
  private readonly status: StatusSource;
  /** The last runs, read again every few seconds (other processes record runs too). */
  private lastRuns: RunRecord[] = [];
  private runsTimer: NodeJS.Timeout | undefined;
  private takeOverTimer: NodeJS.Timeout | undefined;
  private readonly connection: SyncConnection;
  private readonly logger: Logger;
  private readonly opts: Pick<WatchArgs, 'poll' | 'reconcile'>;
  private session!: SyncRun;
  /** Start is over: from now on a refused key degrades watch instead of ending it. */
  private watching = false;
  /** The session whose refused key was reported (once each). */
  private refusedSession: SyncRun | undefined;
  private sources: WatchedSource[] = [];
  private readonly pending: PendingFiles;
  /** Files whose window ended, handed over to the session a few at a time. */
  private readonly handOver = new HandOver<PendingEntry>(HAND_OVER_CONCURRENCY, {
    canStart: () => !this.paused && !this.stopping,
    start: (e) => this.handOverFile(e),
    after: () => {
      this.checkFatal();
      this.handOver.pump();
      this.kick();
      this.maybeIdle();
    },
  });
  /** Deletions of sources, one at a time in the order they came. */
  private readonly removals = new InOrder();
  private sourceWatcher: SourceWatcher | undefined;
  private manifestWatcher: ManifestWatcher | undefined;
  private metricsServer: MetricsServer | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private paused = true;
  private stopping = false;
  private rotation: Promise<void> = Promise.resolve();
  private fatal: Error | undefined;
  private resolveDone!: (code: number) => void;
  /** Resolves with the exit code once the watcher has stopped (signal, or a fatal error). */
  readonly done: Promise<number>;

  constructor(args: WatchArgs) {
    super();
    this.loaded = args.loaded;
    this.state = args.state;
    this.status = args.status;
    this.events = args.events ?? createSyncEvents();
    this.connection = args.connection;
    this.logger = args.logger;
    this.opts = { poll: args.poll, reconcile: args.reconcile };
    this.pending = new PendingFiles(this.windowMs());
    this.metrics = new WatchMetrics(
      {
        queueDepth: () => this.queueDepth(),
        watches: () => this.sourceWatcher?.watches() ?? 0,
        lastOutcome: () => lastOutcome(this.lastRuns, this.loaded, this.loaded.path),
      },
      { processMetrics: this.loaded.manifest.watch.metrics !== undefined },
    );
    this.metrics.observe(this.events);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  get manifest(): LoadedManifest {
    return this.loaded;
  }

  get metricsUrl(): string | undefined {
    return this.metricsServer?.url;
  }

  /** Files not yet handed to the engine plus jobs not finished. */
  queueDepth(): number {
    return this.pending.size + this.handOver.waiting + this.handOver.inFlight + this.metrics.jobsInFlight();
  }

  /** Count a retried request (pass as the client's onRetry). */
  onRetry = (info: { method: string }): void => this.metrics.retried(info.method);

  private windowMs(): number {
    return this.loaded.manifest.watch.stability * 1000;
  }

  private async newSession(): Promise<SyncRun> {
    const perMonth = this.loaded.manifest.budget?.per_month;
    const billed = perMonth !== undefined ? await billedThisMonth(this.state) : 0;
    return SyncRun.open({
      loaded: this.loaded,
      connection: this.connection,
      state: this.state,
      logger: this.logger,
      events: this.events,
      ...(this.opts.reconcile ? { reconcile: this.opts.reconcile } : {}),
      options: {
        command: 'watch',
        stopDeadlineMs: this.loaded.manifest.watch.shutdown * 1000,
        // The monthly cap holds in watch (budget.per_run is a sync's); each session (a periodic
        // rescan starts the next) counts the month anew, so a new month uploads again.
        ...(perMonth !== undefined ? { budget: { caps: { perMonth }, billedThisMonth: billed } } : {}),
        ...(this.opts.poll ? { poll: this.opts.poll } : {}),
      },
    });
  }

  /**
   * Start: style lists, recorded uploads resumed, watchers up, initial full scan, then events.
   * Resolves once the initial scan has queued its work.
   */
  async start(): Promise<void> {
    const w = this.loaded.manifest.watch;
    if (w.metrics) {
      // The status page for people beside /healthz and /metrics (loaded only when served).
      const [{ createStatusPage }, { RunTracker }] = await Promise.all([
        import('../web/status-page.js'),
        import('../sync/run-tracker.js'),
      ]);
      const page = createStatusPage({
        state: this.state,
        status: this.status,
        manifest: () => this.loaded,
        tracker: new RunTracker(this.events),
        events: this.events,
        health: () => this.metrics.healthz(),
      });
      this.metricsServer = await startMetricsServer(this.metrics, w.metrics, (req, res) =>
        page.handle(req, res),
      );
      this.logger.info({ url: this.metricsServer.url }, 'serving the status page (/), /healthz and /metrics');
    }
    await this.readRuns();
    this.runsTimer = setInterval(() => void this.readRuns(), RUNS_EVERY_MS);
    this.runsTimer.unref();
    this.session = await this.newSession();
    await this.session.reconcileStyles();
    await this.startSourceWatcher();
    this.manifestWatcher = watchManifestFiles(manifestFiles(this.loaded), w, () => void this.reload());
    await this.manifestWatcher.ready;
    await this.session.scanAll();
    this.checkFatal();
    this.watching = true;
    this.paused = false;
    this.scheduleRescan();
    this.scheduleTakeOver();
    this.logger.info(
      { mappings: this.loaded.manifest.mappings.map((m) => m.name), poll: w.poll },
      'watching for changes',
    );
    this.emit('ready', { metricsUrl: this.metricsServer?.url });
    this.kick();
  }

  private async startSourceWatcher(): Promise<void> {
    await this.sourceWatcher?.close();
    this.sources = watchedSources(this.loaded);
    const sw = startSourceWatcher(
      this.sources,
      this.loaded.manifest.watch,
      {
        file: (abs, kind) => this.onFileEvent(abs, kind),
        problems: (list) => this.metrics.setWatcherProblems(list),
        // Native events missed everything while the folder was away.
        rootBack: () => void this.rotate('periodic'),
      },
      { recorded: (mapping) => recordedFiles(this.state, mapping) },
      this.logger,
    );
    this.sourceWatcher = sw;
    await sw.ready;
  }

  private onFileEvent(abs: string, kind: 'change' | 'unlink'): void {
    if (this.stopping) return;
    for (const ref of locate(this.sources, abs)) {
      const src = this.sources.find((s) => s.mapping === ref.mapping)!;
      this.pending.add(ref, src.root, kind);
    }
    this.kick();
  }

  /** Make sure a sweep is scheduled while anything is pending (no timer at all when idle). */
  private kick(): void {
    if (this.tickTimer || this.stopping || this.paused) return;
    if (this.pending.size === 0 && this.handOver.waiting === 0) return;
    // Often enough that a file is handed over soon after its window ends; less often the more files
    // are pending (each sweep stats every one of them): a burst of thousands once a second.
    const base = Math.min(250, Math.max(50, this.windowMs() / 8));
    const every = Math.min(1000, base + this.pending.size / 2);
    this.tickTimer = setTimeout(() => {
      this.tickTimer = undefined;
      this.sweep();
      this.kick();
    }, every);
  }

  private sweep(): void {
    if (this.paused || this.stopping) return;
    const s = this.pending.sweep(Date.now(), this.handOver.waiting + this.handOver.inFlight > 0);
    for (const e of s.newlyOpen) {
      this.logger.info(
        { mapping: e.mapping, file: e.relPath, lock: e.openIn },
        'document is open in an editor: waiting until it is closed',
      );
      this.emit('file:open', { mapping: e.mapping, file: e.relPath, lockFile: e.openIn ?? '' });
    }
    this.handOver.push(s.ready);
    this.handOver.pump();
    for (const e of s.removed) this.removeSource(e);
  }

  private handOverFile(e: PendingEntry): Promise<void> | undefined {
    if (!this.hasMapping(e.mapping)) return undefined; // removed by a manifest edit
    // A file whose job is in flight is handed over at once: the session decides it after that job
    // (a touch is then "unchanged", new content a job of its own), never a second poller or upload.
    this.metrics.fileSeen();
    return this.session
      .scanFile(e.mapping, e.relPath)
      .catch((err: Error) =>
        this.logger.error({ mapping: e.mapping, file: e.relPath, err: err.message }, 'could not handle file'),
      );
  }

  private hasMapping(name: string): boolean {
    return this.loaded.manifest.mappings.some((m) => m.name === name);
  }

  private removeSource(e: PendingEntry): void {
    if (!this.hasMapping(e.mapping)) return;
    // An unmounted share makes every file look deleted: nothing is removed while its folder is away
    // (the rescan once it is back decides).
    const root = this.sources.find((s) => s.mapping === e.mapping)?.root;
    if (root && this.sourceWatcher && !this.sourceWatcher.trusts(root)) return;
    this.removals.add(
      () =>
        this.session
          .fileRemoved(e.mapping, e.relPath)
          .catch((err: Error) =>
            this.logger.error(
              { mapping: e.mapping, file: e.relPath, err: err.message },
              'could not handle deletion',
            ),
          ),
      () => this.maybeIdle(),
    );
  }

  private maybeIdle(): void {
    if (this.queueDepth() === 0 && this.removals.size === 0) this.emit('idle');
  }

  private checkFatal(): void {
    const err = this.session?.fatalError();
    if (!err || this.fatal) return;
    if (err instanceof AuthError && this.watching) return this.keyRefused(err);
    this.fatal = err;
    this.logger.error({ err: err.message }, 'stopping: the watcher cannot go on');
    void this.stop();
  }

  /**
   * The service refused the key after watch had started (revoked, rotated, a passing 403): watch
   * stays up and says so (/healthz degraded, metrics, notifications); uploads stay stopped until the
   * next rescan tries again. A key refused at start is a configuration error (exit 2).
   */
  private keyRefused(err: Error): void {
    if (this.refusedSession === this.session) return;
    this.refusedSession = this.session;
    const again = this.loaded.manifest.watch.rescan_minutes;
    const reason = `the service refused the API key (${err.message}): check $${this.loaded.manifest.service.key_env}; uploads and status checks wait for the next rescan (every ${again} min, or a manifest edit), which tries again`;
    this.logger.error(reason);
    // The session's own stop (its uploads:stopped) is not there when a rescan's first request failed.
    this.events.emit('uploads:stopped', { reason, kind: 'auth' });
  }

  /** Wait until nothing is pending or in flight (tests, benchmarks). */
  async settle(): Promise<void> {
    await this.rotation;
    while (this.pending.size || this.handOver.waiting || this.handOver.inFlight || this.removals.size) {
      await this.removals.settled();
      await sleep(20);
    }
    await this.session.drain();
  }

  /** The last runs that ran, for /healthz and the metrics (a failed read keeps the previous ones). */
  private async readRuns(): Promise<void> {
    try {
      this.lastRuns = await this.status.lastRanRuns();
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'last runs not read');
    }
  }

  /**
   * With other workers on the state (PostgreSQL): every third of the lease, the work of workers whose
   * lease ran out (they died) is taken over, also while this one is idle, and resumed from its record
   * (a document with an id is collected, never uploaded again).
   */
  private scheduleTakeOver(): void {
    const shared = this.state.shared;
    if (!shared) return;
    this.takeOverTimer = setTimeout(
      () =>
        void this.takeOverOrphans().finally(() => {
          if (!this.stopping) this.scheduleTakeOver();
        }),
      (shared.leaseSeconds * 1000) / 3,
    );
    this.takeOverTimer.unref();
  }

  private async takeOverOrphans(): Promise<void> {
    if (this.stopping) return;
    try {
      if ((await this.state.shared!.orphaned()) === 0) return;
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'could not look for the work of dead workers');
      return;
    }
    // As a rescan: the session in force plans what it can take now, hand-overs paused meanwhile.
    await this.whilePaused(async () => {
      this.logger.info('taking over the work of a worker that stopped beating');
      try {
        await this.session.takeOver();
      } catch (err) {
        this.logger.error({ err: (err as Error).message }, 'could not take over the work of a dead worker');
      }
    });
  }

  // ------------------------------------------------------------ rescans and manifest edits

  private scheduleRescan(): void {
    clearInterval(this.rescanTimer);
    const ms = this.loaded.manifest.watch.rescan_minutes * 60_000;
    this.rescanTimer = setInterval(() => void this.rotate('periodic'), ms);
    this.rescanTimer.unref();
  }

  /**
   * Finish the current session once its work is done (events wait in the pending set meanwhile),
   * then start a fresh one: style lists reconciled, recorded uploads resumed, mappings rescanned.
   */
  private rotate(reason: 'periodic' | 'manifest', next?: LoadedManifest, mappings?: string[]): Promise<void> {
    return this.whilePaused(async () => {
      try {
        await this.session.drain();
        if (this.stopping) return;
        await this.session.finish();
        await this.readRuns();
        const sourcesBefore = JSON.stringify(watchedSources(this.loaded).map((s) => [s.root, s.skipDirs]));
        const watchBefore = JSON.stringify(this.loaded.manifest.watch);
        if (next) this.loaded = next;
        this.emit('rescan', { reason });
        this.session = await this.newSession();
        try {
          await this.session.reconcileStyles();
        } catch (err) {
          this.logger.error(
            { err: (err as Error).message },
            'style lists could not be reconciled: documents use the style lists applied last',
          );
          if (err instanceof AuthError) throw err;
        }
        if (next) {
          const sourcesAfter = JSON.stringify(watchedSources(this.loaded).map((s) => [s.root, s.skipDirs]));
          const watchAfter = JSON.stringify(this.loaded.manifest.watch);
          if (watchAfter !== watchBefore) this.pending.setWindow(this.windowMs());
          if (sourcesAfter !== sourcesBefore || watchAfter !== watchBefore) await this.startSourceWatcher();
          else this.sources = watchedSources(this.loaded);
          this.manifestWatcher?.setFiles(manifestFiles(this.loaded));
          this.scheduleRescan();
        }
        await this.session.scanAll(mappings);
      } catch (err) {
        if (err instanceof AuthError) this.keyRefused(err);
        else this.logger.error({ err: (err as Error).message }, `${reason} rescan failed`);
      }
    });
  }

  /**
   * Run `fn` with hand-overs paused (events wait in the pending set) once the files being handed
   * over and the deletions under way are done; one such step at a time, in order.
   */
  private whilePaused(fn: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (this.stopping) return;
      this.paused = true;
      clearTimeout(this.tickTimer);
      this.tickTimer = undefined;
      try {
        await this.handOver.inFlightDone();
        await this.removals.settled();
        await fn();
      } finally {
        this.paused = false;
      }
      this.checkFatal();
      this.kick();
      this.handOver.pump();
    };
    this.rotation = this.rotation.then(run);
    return this.rotation;
  }

  /** The manifest or a style list file changed: apply the edit if it is valid, else keep running. */
  async reload(): Promise<void> {
    if (this.stopping) return;
    const { loaded: next, errors } = await checkManifestFile(this.loaded.path);
    if (!next) {
      const lines = errors.map((e) => e.format());
      for (const e of errors)
        this.logger.error(
          { file: e.file, line: e.line, column: e.column },
          `manifest edit not applied (the previous manifest keeps running): ${e.format()}`,
        );
      this.metrics.setManifestRejected(lines[0]?.split('\n')[0]);
      this.emit('manifest:rejected', { errors: lines });
      return;
    }
    const old = this.loaded;
    const stateOf = (l: LoadedManifest) => l.postgres?.url ?? l.statePath;
    if (stateOf(next) !== stateOf(old)) {
      const msg = `${next.path}: the state changed (${stateOf(old)} → ${stateOf(next)}): restart locsync watch to use it; the edit is not applied`;
      this.logger.error(msg);
      this.metrics.setManifestRejected(msg);
      this.emit('manifest:rejected', { errors: [msg] });
      return;
    }
    this.metrics.setManifestRejected(undefined);
    if (JSON.stringify(next.manifest.service) !== JSON.stringify(old.manifest.service))
      this.logger.warn('service settings changed: they apply after a restart of locsync watch');
    const mappings = changedMappings(old, next);
    this.logger.info({ mappings }, 'manifest changed: applying it');
    await this.rotate('manifest', next, mappings);
    if (!this.stopping) this.emit('manifest:applied', { mappings });
  }

  // ------------------------------------------------------------ stop

  /**
   * Stop taking new work (watchers closed; what is pending is found again by the next start's scan),
   * let jobs in flight finish until watch.shutdown, then leave the rest recorded. Resolves with the
   * exit code (also on `done`). Past the grace, status checks and downloads not started are left to
   * the next start (they resume from id and key); an upload already sent is awaited so that its id is
   * recorded before the state closes: the next start must not upload (and pay for) it again.
   */
  /** A second signal: stop waiting for translations now (see SyncRun.stopWaiting). */
  stopWaiting(): void {
    this.session?.stopWaiting();
  }

  async stop(ended?: unknown): Promise<number> {
    if (this.stopping) return this.done;
    this.stopping = true;
    clearTimeout(this.tickTimer);
    clearInterval(this.rescanTimer);
    clearInterval(this.runsTimer);
    clearTimeout(this.takeOverTimer);
    const deadlineMs = this.loaded.manifest.watch.shutdown * 1000;
    const closing = Promise.all([this.sourceWatcher?.close(), this.manifestWatcher?.close()]);
    const waitingFiles = this.pending.size + this.handOver.clear();
    if (waitingFiles)
      this.logger.info({ files: waitingFiles }, 'not handed over yet: picked up by the next start');
    this.pending.clear();
    await Promise.all([this.session?.stop({ deadlineMs }), closing, this.removals.settled()]);
    // A file being handed over when the signal came ends as left work; nothing writes after this.
    await this.handOver.inFlightDone();
    await this.session?.stop({ deadlineMs: 0 });
    // Stopped by a signal, as a watch ends: stopped; by an error at start (`ended`): failed, with its reason.
    const summary = await this.session?.finish(ended === undefined ? 'stopped' : 'failed', ended);
    await this.metricsServer?.close();
    const code = this.fatal ? (this.fatal instanceof AuthError ? 2 : 1) : 0;
    if (summary)
      this.logger.info(
        {
          uploads: summary.uploads,
          translated: summary.translated,
          reused: summary.reused,
          left: summary.left,
          left_uploaded: summary.leftUploaded,
        },
        summary.left
          ? `stopped: ${summary.left} outputs left for the next start (${summary.leftUploaded} already uploaded: collected, not paid again)`
          : 'stopped',
      );
    this.resolveDone(code);
    return code;
  }
}

/** Mappings whose definition, style lists or glossaries differ between two manifests (new mappings included). */
export function changedMappings(old: LoadedManifest, next: LoadedManifest): string[] {
  const describe = (l: LoadedManifest, name: string) => {
    const m = l.manifest.mappings.find((x) => x.name === name);
    if (!m) return undefined;
    const lists = m.targets.map((t) => (t.style ? l.styleLists[t.style] : null));
    const glossaries = m.targets.map((t) => {
      const g = t.glossary ? l.glossaries?.[t.glossary] : undefined;
      return g ? Object.entries(g.dictionaries).map(([p, d]) => [p, [...d.entries]]) : null;
    });
    return JSON.stringify([m, lists, glossaries, l.manifest.max_attempts]);
  };
  return next.manifest.mappings
    .map((m) => m.name)
    .filter((name) => describe(old, name) !== describe(next, name));
}

export function createWatchRunner(args: WatchArgs): WatchRunner {
  return new WatchRunner(args);
}
