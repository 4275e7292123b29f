import pino, { type Logger, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import { scrub } from './secrets.js';

export type LogFormat = 'json' | 'pretty';
export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** json: one JSON object a line (cron, systemd); pretty: readable lines (a TTY). Default: by TTY. */
  format?: LogFormat;
  /** Where lines go; default stderr (stdout is kept for command output such as --json). */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/** Field paths that are always redacted, whatever their value. */
export const REDACT_PATHS = [
  'document_key',
  '*.document_key',
  'documentKey',
  '*.documentKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'authKey',
  '*.authKey',
];

export function createLogger(opts: LoggerOptions = {}): Logger {
  const dest = opts.destination ?? process.stderr;
  const format: LogFormat =
    opts.format ?? ((dest as NodeJS.WriteStream).isTTY && !process.env.CI ? 'pretty' : 'json');
  const stream =
    format === 'pretty'
      ? pretty({
          destination: dest as NodeJS.WritableStream,
          colorize: true,
          sync: true,
          translateTime: 'SYS:HH:MM:ss',
        })
      : (dest as DestinationStream);
  return pino(
    {
      level: opts.level ?? process.env.LOCSYNC_LOG_LEVEL ?? 'info',
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
