import type { Command } from 'commander';
import { Option } from 'commander';
import {
  createLogger,
  isInteractive,
  LOG_FORMATS,
  LOG_LEVELS,
  setLoggerDefaults,
  type LogFormat,
  type Logger,
} from '../log/logger.js';

// Shared CLI setup: the global flags every command accepts, and what follows from them
// (logger defaults, whether a live progress view may be drawn).

export interface GlobalOptions {
  logFormat?: LogFormat;
  logLevel?: string;
  /** false with --no-progress. */
  progress: boolean;
}

let current: GlobalOptions = { progress: true };

/** Add --log-format, --log-level and --no-progress to the program (inherited by every command). */
export function addGlobalOptions(program: Command): void {
  program
    .addOption(
      new Option(
        '--log-format <format>',
        'log lines: json (one object a line) or pretty; default: pretty on a terminal, json otherwise',
      ).choices([...LOG_FORMATS]),
    )
    .addOption(
      new Option(
        '--log-level <level>',
        'least important log lines shown (default: warn under the live view on a terminal, info otherwise; or $LOCSYNC_LOG_LEVEL)',
      ).choices([...LOG_LEVELS]),
    )
    .option(
      '--no-progress',
      'no live progress view, just log lines (also without a terminal, or with CI set)',
    )
    .hook('preAction', (_program, action) => applyGlobalOptions(action.optsWithGlobals()));
}

/** Remember the global flags and make every createLogger() follow them. */
export function applyGlobalOptions(opts: Partial<GlobalOptions>): void {
  current = {
    progress: opts.progress !== false,
    ...(opts.logFormat ? { logFormat: opts.logFormat } : {}),
    ...(opts.logLevel ? { logLevel: opts.logLevel } : {}),
  };
  // Under a live view the terminal shows the view, warnings and errors; info lines only when asked
  // for (--log-level info, $LOCSYNC_LOG_LEVEL) or without a terminal (files, journald, CI).
  const level = current.logLevel ?? (!process.env.LOCSYNC_LOG_LEVEL && progressWanted() ? 'warn' : undefined);
  setLoggerDefaults({
    ...(current.logFormat ? { format: current.logFormat } : {}),
    ...(level ? { level } : {}),
  });
}

export function globalOptions(): GlobalOptions {
  return current;
}

/** The logger of a command, following the global flags. */
export function cliLogger(): Logger {
  return createLogger();
}

/**
 * Whether a live progress view may be drawn on stderr: a terminal, no CI variable, no
 * --no-progress, and not JSON log lines (a terminal reading JSON wants lines, not a view).
 */
export function progressWanted(stream: NodeJS.WritableStream = process.stderr): boolean {
  return current.progress && isInteractive(stream) && current.logFormat !== 'json';
}
