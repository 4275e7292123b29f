import { createRequire } from 'node:module';
import pino, { type Logger, type DestinationStream } from 'pino';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import { scrub } from './secrets.js';
import { wrapForTerminal } from '../util/fit-text.js';
import { writeAboveLive } from './terminal.js';

export type LogFormat = 'json' | 'pretty';
export type { Logger };

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export interface LoggerOptions {
  level?: string;
  /** json: one JSON object a line (cron, systemd); pretty: readable lines (a TTY). Default: by TTY. */
  format?: LogFormat;
  /** Where lines go; default stderr (stdout is kept for command output such as --json). */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/** Field paths that are always redacted, whatever their value (registered secrets are scrubbed too). */
export const REDACT_PATHS = [
  'document_key',
  '*.document_key',
  '*.*.document_key',
  'documentKey',
  '*.documentKey',
  'authorization',
  '*.authorization',
  'Authorization',
  '*.Authorization',
  'headers.authorization',
  '*.headers.authorization',
  '*.*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'authKey',
  '*.authKey',
  'auth_key',
  '*.auth_key',
];

// Defaults set once by the CLI from the global flags (--log-format, --log-level); every
// createLogger() call without explicit options follows them.
let defaults: Pick<LoggerOptions, 'level' | 'format'> = {};

export function setLoggerDefaults(opts: Pick<LoggerOptions, 'level' | 'format'>): void {
  defaults = { ...opts };
}

/** True when `stream` is a terminal that may receive colours and cursor movement. */
export function isInteractive(stream: NodeJS.WritableStream | DestinationStream = process.stderr): boolean {
  return !!(stream as NodeJS.WriteStream).isTTY && !process.env.CI && process.env.TERM !== 'dumb';
}

/** Colours only on an interactive terminal, and never with NO_COLOR set. */
export function colorsAllowed(stream: NodeJS.WritableStream | DestinationStream = process.stderr): boolean {
  return isInteractive(stream) && !process.env.NO_COLOR;
}

/**
 * pino-pretty, loaded when a logger prints pretty lines (a terminal): off a terminal (cron, systemd,
 * a script) the command does not load it. Required, not imported: a logger is made synchronously.
 */
const prettyFactory: typeof PrettyFactory = (...args) =>
  (createRequire(import.meta.url)('pino-pretty') as { prettyFactory: typeof PrettyFactory }).prettyFactory(
    ...args,
  );

export function createLogger(opts: LoggerOptions = {}): Logger {
  const dest = (opts.destination ?? process.stderr) as NodeJS.WritableStream;
  const format: LogFormat = opts.format ?? defaults.format ?? (isInteractive(dest) ? 'pretty' : 'json');
  const prettify =
    format === 'pretty'
      ? prettyFactory({
          colorize: colorsAllowed(dest),
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname',
          // One line per entry: a terminal shows the message and its fields together, and the
          // live view below it stays in place.
          singleLine: true,
        })
      : undefined;
  const stream: DestinationStream = {
    write(line: string) {
      if (!prettify) return writeAboveLive(dest, line);
      // On a terminal a long entry wraps between words (the terminal would cut a word in two).
      const columns = (dest as NodeJS.WriteStream).columns;
      const text = scrub(prettify(line));
      writeAboveLive(dest, columns ? wrapForTerminal(text, columns) : text);
    },
  };
  return pino(
    {
      level: opts.level ?? defaults.level ?? process.env.LOCSYNC_LOG_LEVEL ?? 'info',
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: { streamWrite: (s: string) => scrub(s) },
    },
    stream,
  );
}

/** A logger that writes nothing (library default and tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
