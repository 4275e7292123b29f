import path from 'node:path';
import { openConnection, type Connection } from './connect.js';
import { createLogger, type Logger } from '../log/logger.js';
import { gitDeliveryWanted } from '../manifest/sections/git.js';
import { loadManifest } from '../manifest/load.js';
import { notifyRunEvents } from '../notify/run-notifications.js';
import { webhookFromManifest } from '../notify/webhook.js';
import { lagProbeFromEnv } from '../watch/event-loop-lag.js';
import { createWatchRunner, type WatchRunner } from '../watch/runner.js';
import { progressWanted } from './context.js';
import { startRunView, type RunView } from './progress.js';
import { onStopSignals } from './shutdown.js';
import { openRunState, type OpenedState } from './open-state.js';
import { recordRefused, recordRefusedRun } from './refused-run.js';

interface WatchCliOptions {
  config: string;
}

export async function watchAction(opts: WatchCliOptions): Promise<void> {
  process.exitCode = await watchCommand(opts);
  // An upload still streaming past the shutdown deadline must not keep the process alive: its job
  // is recorded as started, and the next start deals with it.
  setTimeout(() => process.exit(), 3000).unref();
}

export async function watchCommand(opts: WatchCliOptions): Promise<number> {
  const loaded = await loadManifest(opts.config);
  const logger = createLogger();
  const stopLagProbe = lagProbeFromEnv(logger);
  let opened: OpenedState;
  try {
    opened = await openRunState(loaded, { logger, command: 'watch', drives: true });
  } catch (err) {
    await recordRefusedRun(loaded, 'watch', err);
    throw err;
  }
  const { state } = opened;
  let runner: WatchRunner | undefined;
  const signals = onStopSignals({
    logger,
    message: `stopping: no new uploads, documents in flight get ${loaded.manifest.watch.shutdown}s to finish`,
    next: 'the next start',
    stop: () => void runner?.stop(),
    stopWaiting: () => runner?.stopWaiting(),
    ready: () => runner !== undefined,
  });
  let connection: Connection | undefined;
  let view: RunView | undefined;
  let commits: { close(): Promise<void> } | undefined;
  try {
    try {
      connection = await openConnection(loaded, {
        logger,
        stateDir: path.dirname(loaded.statePath),
        onRetry: (info) => runner?.onRetry(info),
      });
    } catch (err) {
      // A missing API key: refused before the watch began.
      await recordRefused(state, 'watch', err);
      throw err;
    }
    runner = createWatchRunner({ loaded, state, status: opened.status, connection, logger });
    commits = await batchedCommits(runner, logger);
    const notifier = webhookFromManifest(loaded.manifest.notify, { pipeline: loaded.path, logger });
    if (notifier) {
      notifyRunEvents(runner.events, notifier, 'watch');
      runner.on('manifest:rejected', (e) =>
        notifier.send(
          'manifest-rejected',
          `locsync watch: the edit of ${loaded.path} was rejected; the previous manifest stays in force until it is fixed`,
          { errors: e.errors },
        ),
      );
    }
    view = startRunView({
      events: runner.events,
      logger,
      configPath: opts.config,
      progress: progressWanted(),
      resumeCommand: 'watch',
      ...(loaded.manifest.billing ? { rate: loaded.manifest.billing } : {}),
    });
    try {
      await runner.start();
    } catch (err) {
      await runner.stop(err);
      throw err;
    }
    return await runner.done;
  } finally {
    // The batch delivered since the last commit is committed before the watch ends.
    await commits?.close();
    view?.close();
    signals.dispose();
    stopLagProbe();
    await connection?.close().catch(() => undefined);
    await opened.close();
  }
}

/** git.commit: what the watch delivers is committed in batches (src/delivery, loaded only then). */
async function batchedCommits(
  runner: WatchRunner,
  logger: Logger,
): Promise<{ close(): Promise<void> } | undefined> {
  if (!gitDeliveryWanted(runner.manifest.manifest.git)) return undefined;
  const { BatchedCommits } = await import('../delivery/batched-commits.js');
  return new BatchedCommits(runner.events, () => runner.manifest, logger);
}
