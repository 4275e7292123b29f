import type { Logger } from '../log/logger.js';

// How `sync` and `watch` stop: the first SIGINT/SIGTERM asks the run to finish what is in flight and
// start nothing new; a second one exits at once (recorded uploads are collected by the next run).

export interface StopSignals {
  /** Stop listening (the command is done). */
  dispose(): void;
}

/**
 * Call `stop` on the first SIGINT or SIGTERM (after logging `message`); exit 130 on the second, or on
 * the first when `ready()` says there is nothing to stop gracefully yet.
 */
export function onStopSignals(opts: {
  logger: Logger;
  /** What the first signal does, as logged ("finishing documents in flight ..."). */
  message: string;
  /** Who collects recorded uploads after an immediate exit ("the next run", "the next start"). */
  next: string;
  stop: () => void;
  ready?: () => boolean;
}): StopSignals {
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1 || (opts.ready && !opts.ready())) {
      process.stderr.write(
        `locsync: ${sig} again: exiting now; recorded uploads are collected by ${opts.next}\n`,
      );
      process.exit(130);
    }
    opts.logger.warn(`${sig}: ${opts.message} (press again to exit now)`);
    opts.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
