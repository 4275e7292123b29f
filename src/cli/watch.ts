import path from 'node:path';
import { openConnection, type Connection } from '../api/connect.js';
import { createLogger } from '../log/logger.js';
import { loadManifest } from '../manifest/load.js';
import { openLockedState } from '../state/lock.js';
import { createWatchRunner, type WatchRunner } from '../watch/runner.js';
import { progressWanted } from './context.js';
import { startRunView, type RunView } from './progress.js';

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
  const { state, lock } = openLockedState(loaded.statePath, { logger, command: 'watch' });
  let runner: WatchRunner | undefined;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1 || !runner) {
      process.stderr.write(
        `locsync: ${sig} again: exiting now; recorded uploads are collected by the next start\n`,
      );
      process.exit(130);
    }
    logger.warn(
      `${sig}: stopping: no new uploads, documents in flight get ${loaded.manifest.watch.shutdown}s to finish (press again to exit now)`,
    );
    void runner.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let connection: Connection | undefined;
  let view: RunView | undefined;
  try {
    connection = await openConnection(loaded, {
      logger,
      stateDir: path.dirname(loaded.statePath),
      onRetry: (info) => runner?.onRetry(info),
    });
    runner = createWatchRunner({ loaded, state, connection, logger });
    view = startRunView({
      events: runner.events,
      logger,
      configPath: opts.config,
      progress: progressWanted(),
      resumeCommand: 'watch',
    });
    try {
      await runner.start();
    } catch (err) {
      await runner.stop();
      throw err;
    }
    return await runner.done;
  } finally {
    view?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await connection?.close().catch(() => undefined);
    lock.release();
    state.close();
  }
}
