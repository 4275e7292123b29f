import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import type { SyncRun } from '../sync/sync-run.js';
import { HandOver } from './hand-over.js';
import { InOrder } from './in-order.js';
import { PendingFiles, type PendingEntry } from './pending.js';
import { locate, type WatchedSource } from './sources.js';

// The way of a file event in `locsync watch`: into the pending set (coalesced by path,
// stability-checked), swept on a timer that runs only while something is pending, then handed over
// to the run in force a few at a time; deletions one at a time in the order they came. The runner
// pauses the flow around a rescan or a manifest edit (events wait in the pending set meanwhile).

/** How many files are hashed and classified at once (memory stays flat during bursts). */
const HAND_OVER_CONCURRENCY = 4;

/** What the flow asks of the watch around it. */
export interface FileFlowHooks {
  /** The run in force (a rescan starts the next one). */
  session(): Pick<SyncRun, 'scanFile' | 'fileRemoved'>;
  /** The folders watched now. */
  sources(): WatchedSource[];
  /** False while a watched folder is away (an unmounted share): its deletions are not believed. */
  trusts(root: string): boolean;
  hasMapping(name: string): boolean;
  /** A file was handed over (metrics). */
  seen(): void;
  /** A document is held back: an editor's lock file lies beside it. */
  open(entry: PendingEntry): void;
  /** A hand-over ended: the run may have met an error that ends watch. */
  handedOver(): void;
  /** A hand-over or a deletion ended: watch may be idle now. */
  quiet(): void;
}

export class FileFlow {
  private readonly pending: PendingFiles;
  /** Files whose window ended, handed over to the session a few at a time. */
  private readonly handOver = new HandOver<PendingEntry>(HAND_OVER_CONCURRENCY, {
    canStart: () => !this.paused && !this.stopped,
    start: (e) => this.handOverFile(e),
    after: () => {
      this.hooks.handedOver();
      this.handOver.pump();
      this.kick();
      this.hooks.quiet();
    },
  });
  /** Deletions of sources, one at a time in the order they came. */
  private readonly removals = new InOrder();
  private tickTimer: NodeJS.Timeout | undefined;
  /** Paused until the initial scan is done, and around every rescan. */
  private paused = true;
  private stopped = false;

  constructor(
    private windowMs: number,
    private readonly hooks: FileFlowHooks,
    private readonly logger: Logger,
  ) {
    this.pending = new PendingFiles(windowMs);
  }

  /** Files not yet handed to the engine (pending, waiting or being handed over). */
  get size(): number {
    return this.pending.size + this.handOver.waiting + this.handOver.inFlight;
  }

  /** Deletions queued or under way. */
  get removing(): number {
    return this.removals.size;
  }

  /** A watched file changed or went away. */
  add(abs: string, kind: 'change' | 'unlink'): void {
    if (this.stopped) return;
    const sources = this.hooks.sources();
    for (const ref of locate(sources, abs)) {
      const src = sources.find((s) => s.mapping === ref.mapping)!;
      this.pending.add(ref, src.root, kind);
    }
    this.kick();
  }

  /** The stability window (watch.stability) changed with a manifest edit. */
  setWindow(ms: number): void {
    this.windowMs = ms;
    this.pending.setWindow(ms);
  }

  /**
   * Stops handing over and waits until the files being handed over and the deletions under way
   * are done (events keep coming into the pending set).
   */
  async pause(): Promise<void> {
    this.paused = true;
    clearTimeout(this.tickTimer);
    this.tickTimer = undefined;
    await this.handOver.inFlightDone();
    await this.removals.settled();
  }

  /** Hand-overs may go on (call `wake` to start them). */
  unpause(): void {
    this.paused = false;
  }

  /** Sweep soon and hand over what may go now. */
  wake(): void {
    this.kick();
    this.handOver.pump();
  }

  /** Wait until nothing is pending, handed over or being deleted. */
  async settle(): Promise<void> {
    while (this.size || this.removals.size) {
      await this.removals.settled();
      await sleep(20);
    }
  }

  /** Takes no more events; answers how many files were dropped (the next start finds them again). */
  stop(): number {
    this.stopped = true;
    clearTimeout(this.tickTimer);
    const dropped = this.pending.size + this.handOver.clear();
    this.pending.clear();
    return dropped;
  }

  /** The deletions queued so far are done. */
  removalsDone(): Promise<void> {
    return this.removals.settled();
  }

  /** The files being handed over are done. */
  handOversDone(): Promise<void> {
    return this.handOver.inFlightDone();
  }

  /** Make sure a sweep is scheduled while anything is pending (no timer at all when idle). */
  private kick(): void {
    if (this.tickTimer || this.stopped || this.paused) return;
    if (this.pending.size === 0 && this.handOver.waiting === 0) return;
    // Often enough that a file is handed over soon after its window ends; less often the more files
    // are pending (each sweep stats every one of them): a burst of thousands once a second.
    const base = Math.min(250, Math.max(50, this.windowMs / 8));
    const every = Math.min(1000, base + this.pending.size / 2);
    this.tickTimer = setTimeout(() => {
      this.tickTimer = undefined;
      this.sweep();
      this.kick();
    }, every);
  }

  private sweep(): void {
    if (this.paused || this.stopped) return;
    const s = this.pending.sweep(Date.now(), this.handOver.waiting + this.handOver.inFlight > 0);
    for (const e of s.newlyOpen) this.hooks.open(e);
    this.handOver.push(s.ready);
    this.handOver.pump();
    for (const e of s.removed) this.removeSource(e);
  }

  private handOverFile(e: PendingEntry): Promise<void> | undefined {
    if (!this.hooks.hasMapping(e.mapping)) return undefined; // removed by a manifest edit
    // A file whose job is in flight is handed over at once: the session decides it after that job
    // (a touch is then "unchanged", new content a job of its own), never a second poller or upload.
    this.hooks.seen();
    return this.hooks
      .session()
      .scanFile(e.mapping, e.relPath)
      .catch((err: Error) =>
        this.logger.error({ mapping: e.mapping, file: e.relPath, err: err.message }, 'could not handle file'),
      );
  }

  private removeSource(e: PendingEntry): void {
    if (!this.hooks.hasMapping(e.mapping)) return;
    // An unmounted share makes every file look deleted: nothing is removed while its folder is away
    // (the rescan once it is back decides).
    const root = this.hooks.sources().find((s) => s.mapping === e.mapping)?.root;
    if (root && !this.hooks.trusts(root)) return;
    this.removals.add(
      () =>
        this.hooks
          .session()
          .fileRemoved(e.mapping, e.relPath)
          .catch((err: Error) =>
            this.logger.error(
              { mapping: e.mapping, file: e.relPath, err: err.message },
              'could not handle deletion',
            ),
          ),
      () => this.hooks.quiet(),
    );
  }
}
