import type { Logger } from '../log/logger.js';

// How `sync` and `watch` stop. The first SIGINT/SIGTERM asks the run to finish what is in flight and
// start nothing new (it ends as soon as nothing is left to await, at the latest after the grace).
// A second one is a decision, not a crash: stop waiting for translations at the service (they stay
// recorded with their id and key, and the next run collects them without paying again), await only
// the answers of uploads already sent (cutting one is what could bill a document twice), record the
// run as interrupted. Only a third one exits at once.

export interface StopSignals {
  /** Stop listening (the command is done). */
  dispose(): void;
}

/** What each press of Ctrl-C says it does (the log line, the view's header). */
export const STOP_TEXT = {
  again: 'Ctrl-C again: stop waiting for translations',
  stopWaiting:
    'not waiting for translations any more: documents at the service stay recorded and the next run collects them (not paid again); only answers of uploads already sent are awaited',
  exitNow: 'Ctrl-C again: exit at once',
} as const;

/**
 * Call `stop` on the first SIGINT or SIGTERM (after logging `message`), `stopWaiting` on the second;
 * exit 130 on the third, or on the first when `ready()` says there is nothing to stop gracefully yet.
 */
export function onStopSignals(opts: {
  logger: Logger;
  /** What the first signal does, as logged ("finishing documents in flight ..."). */
  message: string;
  /** Who collects recorded uploads after an immediate exit ("the next run", "the next start"). */
  next: string;
  stop: () => void;
  stopWaiting: () => void;
  ready?: () => boolean;
}): StopSignals {
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 2 || (opts.ready && !opts.ready())) {
      process.stderr.write(
        `locsync: ${sig} again: exiting now; recorded uploads are collected by ${opts.next}\n`,
      );
      process.exit(130);
    }
    if (signals === 2) {
      opts.logger.warn(`${sig} again: ${STOP_TEXT.stopWaiting} (${STOP_TEXT.exitNow})`);
      opts.stopWaiting();
      return;
    }
    opts.logger.warn(`${sig}: ${opts.message} (${STOP_TEXT.again})`);
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
