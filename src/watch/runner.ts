import { EventEmitter } from 'node:events';
import { AuthError } from '../api/errors.js';
import type { Logger } from '../log/logger.js';
import type { LoadedManifest } from '../manifest/types.js';
import { createSyncEvents, type SyncEvents } from '../sync/events.js';
import type { ReconcileFn, RunState, SyncConnection, SyncRun } from '../sync/sync-run.js';
import type { StatusSource } from '../report/status-source.js';
import type { PollTiming } from '../sync/timing.js';
import { manifestFiles, watchManifestFiles, type ManifestWatcher } from './manifest-watch.js';
import { lastOutcome } from '../report/advice.js';
import { ledgerOfRuns } from '../report/run-so-far.js';
import { WatchMetrics, type MetricsServer } from './metrics.js';
import { watchedSources, type WatchedSource } from './sources.js';
import { recordedFiles } from './recorded.js';
import { FileFlow } from './file-flow.js';
import { readManifestEdit } from './manifest-edit.js';
import { LastRuns, serveStatus } from './status-serving.js';
import { logStopped, openWatchSession } from './session.js';
import { OrphanSweep } from './take-over.js';
import { startSourceWatcher, type SourceWatcher } from './watcher.js';

// `locsync watch`: the run sequence of `sync` kept open. One SyncRun at a time does the work (the
// same planner, executor, on_source_delete and recorded uploads as `sync`); file events go through a
// pending set (coalesced by path, stability-checked) into run.scanFile (file-flow.ts). A periodic rescan and an
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

export class WatchRunner extends EventEmitter<WatchEventMap> {
  readonly events: SyncEvents;
  readonly metrics: WatchMetrics;
  private loaded: LoadedManifest;
  private readonly state: RunState;
  private readonly status: StatusSource;
  /** The last runs, read again every few seconds (other processes record runs too). */
  private readonly lastRuns: LastRuns;
  /** Other workers on the state (PostgreSQL): the work of those that died is taken over. */
  private orphans: OrphanSweep | undefined;
  private readonly connection: SyncConnection;
  private readonly logger: Logger;
  private readonly opts: Pick<WatchArgs, 'poll' | 'reconcile'>;
  private session!: SyncRun;
  /** Start is over: from now on a refused key degrades watch instead of ending it. */
  private watching = false;
  /** The session whose refused key was reported (once each). */
  private refusedSession: SyncRun | undefined;
  private sources: WatchedSource[] = [];
  /** File events on their way to the session. */
  private readonly files: FileFlow;
  private sourceWatcher: SourceWatcher | undefined;
  private manifestWatcher: ManifestWatcher | undefined;
  private metricsServer: MetricsServer | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
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
    this.lastRuns = new LastRuns(this.status, this.logger);
    this.files = new FileFlow(
      this.windowMs(),
      {
        session: () => this.session,
        sources: () => this.sources,
        trusts: (root) => this.sourceWatcher?.trusts(root) ?? true,
        hasMapping: (name) => this.loaded.manifest.mappings.some((m) => m.name === name),
        seen: () => this.metrics.fileSeen(),
        open: (e) => {
          this.logger.info(
            { mapping: e.mapping, file: e.relPath, lock: e.openIn },
            'document is open in an editor: waiting until it is closed',
          );
          this.emit('file:open', { mapping: e.mapping, file: e.relPath, lockFile: e.openIn ?? '' });
        },
        handedOver: () => this.checkFatal(),
        quiet: () => this.maybeIdle(),
      },
      this.logger,
    );
    this.metrics = new WatchMetrics(
      {
        queueDepth: () => this.queueDepth(),
        watches: () => this.sourceWatcher?.watches() ?? 0,
        lastOutcome: () => lastOutcome(this.lastRuns.runs, this.loaded, this.loaded.path),
        ledger: (runIds) => ledgerOfRuns(this.status, runIds),
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
    return this.files.size + this.metrics.jobsInFlight();
  }

  /** Count a retried request (pass as the client's onRetry). */
  onRetry = (info: { method: string }): void => this.metrics.retried(info.method);

  private windowMs(): number {
    return this.loaded.manifest.watch.stability * 1000;
  }

  private newSession(): Promise<SyncRun> {
    return openWatchSession({
      loaded: this.loaded,
      connection: this.connection,
      state: this.state,
      logger: this.logger,
      events: this.events,
      ...this.opts,
    });
  }

  /**
   * Start: style lists, recorded uploads resumed, watchers up, initial full scan, then events.
   * Resolves once the initial scan has queued its work.
   */
  async start(): Promise<void> {
    const w = this.loaded.manifest.watch;
    if (w.metrics)
      this.metricsServer = await serveStatus({
        listen: w.metrics,
        metrics: this.metrics,
        state: this.state,
        status: this.status,
        manifest: () => this.loaded,
        events: this.events,
        logger: this.logger,
      });
    await this.lastRuns.start();
    this.session = await this.newSession();
    await this.session.reconcileStyles();
    await this.startSourceWatcher();
    this.manifestWatcher = watchManifestFiles(manifestFiles(this.loaded), w, () => void this.reload());
    await this.manifestWatcher.ready;
    await this.session.scanAll();
    this.checkFatal();
    this.watching = true;
    this.files.unpause();
    this.scheduleRescan();
    if (this.state.shared) {
      this.orphans = new OrphanSweep(this.state.shared, () => this.takeOverOrphans(), this.logger);
      this.orphans.start();
    }
    this.logger.info(
      { mappings: this.loaded.manifest.mappings.map((m) => m.name), poll: w.poll },
      'watching for changes',
    );
    this.emit('ready', { metricsUrl: this.metricsServer?.url });
    this.files.wake();
  }

  private async startSourceWatcher(): Promise<void> {
    await this.sourceWatcher?.close();
    this.sources = watchedSources(this.loaded);
    const sw = startSourceWatcher(
      this.sources,
      this.loaded.manifest.watch,
      {
        file: (abs, kind) => this.files.add(abs, kind),
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

  private maybeIdle(): void {
    if (this.queueDepth() === 0 && this.files.removing === 0) this.emit('idle');
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
    await this.files.settle();
    await this.session.drain();
  }

  /** Takes the work of a dead worker over as a rescan: hand-overs paused meanwhile. */
  private takeOverOrphans(): Promise<void> {
    return this.whilePaused(async () => {
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
        await this.lastRuns.read();
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
          if (watchAfter !== watchBefore) this.files.setWindow(this.windowMs());
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
      try {
        await this.files.pause();
        await fn();
      } finally {
        this.files.unpause();
      }
      this.checkFatal();
      this.files.wake();
    };
    this.rotation = this.rotation.then(run);
    return this.rotation;
  }

  /** The manifest or a style list file changed: apply the edit if it is valid, else keep running. */
  async reload(): Promise<void> {
    if (this.stopping) return;
    const edit = await readManifestEdit(this.loaded, this.logger);
    if ('rejected' in edit) {
      this.metrics.setManifestRejected(edit.headline);
      this.emit('manifest:rejected', { errors: edit.rejected });
      return;
    }
    this.metrics.setManifestRejected(undefined);
    const { applied: next, mappings } = edit;
    this.logger.info({ mappings }, 'manifest changed: applying it');
    await this.rotate('manifest', next, mappings);
    if (!this.stopping) this.emit('manifest:applied', { mappings });
  }

  // ------------------------------------------------------------ stop

  /** A second signal: stop waiting for translations now (see SyncRun.stopWaiting). */
  stopWaiting(): void {
    this.session?.stopWaiting();
  }

  /**
   * Stop taking new work (watchers closed; what is pending is found again by the next start's scan),
   * let jobs in flight finish until watch.shutdown, then leave the rest recorded. Resolves with the
   * exit code (also on `done`). Past the grace, status checks and downloads not started are left to
   * the next start (they resume from id and key); an upload already sent is awaited so that its id is
   * recorded before the state closes: the next start must not upload (and pay for) it again.
   */

  async stop(ended?: unknown): Promise<number> {
    if (this.stopping) return this.done;
    this.stopping = true;
    clearInterval(this.rescanTimer);
    this.lastRuns.stop();
    this.orphans?.stop();
    const deadlineMs = this.loaded.manifest.watch.shutdown * 1000;
    const closing = Promise.all([this.sourceWatcher?.close(), this.manifestWatcher?.close()]);
    const waitingFiles = this.files.stop();
    if (waitingFiles)
      this.logger.info({ files: waitingFiles }, 'not handed over yet: picked up by the next start');
    await Promise.all([this.session?.stop({ deadlineMs }), closing, this.files.removalsDone()]);
    // A file being handed over when the signal came ends as left work; nothing writes after this.
    await this.files.handOversDone();
    await this.session?.stop({ deadlineMs: 0 });
    // Stopped by a signal, as a watch ends: stopped; by an error at start (`ended`): failed, with its reason.
    const summary = await this.session?.finish(ended === undefined ? 'stopped' : 'failed', ended);
    await this.metricsServer?.close();
    const code = this.fatal ? (this.fatal instanceof AuthError ? 2 : 1) : 0;
    if (summary) logStopped(this.logger, summary);
    this.resolveDone(code);
    return code;
  }
}

export function createWatchRunner(args: WatchArgs): WatchRunner {
  return new WatchRunner(args);
}
