import type { Logger } from '../log/logger.js';
import { gitDeliveryWanted } from '../manifest/sections/git.js';
import type { LoadedManifest } from '../manifest/types.js';
import type { SyncEvents } from '../sync/events.js';
import { deliverToGit, type GitOutcome } from './deliver.js';
import { DeliveryLog } from './delivered.js';

// `locsync watch` with git.commit: what its runs deliver is committed in batches, at most one
// commit per git.every, never one per file. The first delivery of a batch starts its timer; when
// it fires, everything delivered meanwhile is one commit (and its push). Stopping commits the
// batch not yet committed. A refused commit or push is logged and the watch goes on.

/** The events of a delivery: the first of a batch starts its timer. */
const ARMED_BY = ['job:done', 'job:reused', 'file:removed'] as const;

export class BatchedCommits {
  private readonly log: DeliveryLog;
  private timer: NodeJS.Timeout | undefined;
  /** The commit under way: one at a time. */
  private committing: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly arming = () => this.arm();

  constructor(
    private readonly events: SyncEvents,
    /** The manifest in force (watch applies edits): its git settings are read at each commit. */
    private readonly manifest: () => LoadedManifest,
    private readonly logger: Logger,
    /** Told of each commit's outcome (tests, the log). */
    private readonly done?: (outcome: GitOutcome) => void,
  ) {
    this.log = new DeliveryLog(events, 'watch');
    for (const name of ARMED_BY) events.on(name, this.arming);
  }

  private arm(): void {
    if (this.timer || this.closed) return;
    const every = this.manifest().manifest.git?.every ?? 600;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.commitNow();
    }, every * 1000);
    this.timer.unref();
  }

  /** Commit what was delivered since the last commit (nothing to commit: no commit). */
  commitNow(): Promise<unknown> {
    this.committing = this.committing.then(async () => {
      if (this.log.empty) return;
      const loaded = this.manifest();
      const options = gitDeliveryWanted(loaded.manifest.git);
      if (!options) return void this.log.take();
      try {
        const outcome = await deliverToGit({
          loaded,
          delivery: this.log.take(),
          options,
          logger: this.logger,
        });
        for (const line of outcome.lines) this.logger.info(line);
        this.done?.(outcome);
      } catch (err) {
        this.logger.error({ err: (err as Error).message }, 'the delivery could not be committed');
      }
    });
    return this.committing;
  }

  /** The watch stops: the batch not committed yet is committed now. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.commitNow();
    this.log.detach();
    for (const name of ARMED_BY) this.events.off(name, this.arming);
  }
}
