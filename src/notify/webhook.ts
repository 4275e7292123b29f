import os from 'node:os';
import got from 'got';
import type { Logger } from '../log/logger.js';
import { registerSecret } from '../log/secrets.js';
import type { Manifest } from '../manifest/schema.js';
import type { NotifyEvent } from '../manifest/sections/notify.js';
import { webhookUrl } from '../manifest/webhook-url.js';
import { ConfigError } from '../util/errors.js';

// Notifications: a JSON message POSTed to a webhook (chat, paging, a ticket system) when a run
// failed or was interrupted, the budget is reached, a manifest edit was rejected or drift was found.
// Sending never blocks or fails the pipeline: it runs beside it, is retried with backoff, and a
// notification that cannot be delivered is a warning in the log. The URL (which often carries a
// token) never appears in a log line.

export interface NotifyMessage {
  event: NotifyEvent;
  /** One sentence for people: what happened and what to do. */
  text: string;
  pipeline: string;
  host: string;
  time: string;
  details?: Record<string, unknown>;
}

export interface WebhookOptions {
  url: string;
  events: readonly NotifyEvent[];
  pipeline: string;
  logger: Logger;
  /** Attempts in all (default 5) and the first delay, doubled each time (default 1 s). */
  attempts?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
}

/** The webhook's origin only, for log lines: its path and query may hold a token. */
function webhookOriginOnly(url: string): string {
  try {
    return `${new URL(url).origin}/[REDACTED]`;
  } catch {
    return '[REDACTED]';
  }
}

export class WebhookNotifier {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: WebhookOptions) {
    registerSecret(opts.url);
    const u = new URL(opts.url);
    registerSecret(u.pathname.length > 1 ? u.pathname + u.search : u.search);
    if (u.password) registerSecret(u.password);
  }

  /** Send `event` if it is one of the configured events; returns at once. */
  send(event: NotifyEvent, text: string, details?: Record<string, unknown>): void {
    if (!this.opts.events.includes(event)) return;
    const message: NotifyMessage = {
      event,
      text,
      pipeline: this.opts.pipeline,
      host: os.hostname(),
      time: new Date().toISOString(),
      ...(details ? { details } : {}),
    };
    const p = this.post(message).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Wait for the messages on their way (tests; a command that wants them out before it exits). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async post(message: NotifyMessage): Promise<void> {
    const attempts = this.opts.attempts ?? 5;
    const base = this.opts.retryDelayMs ?? 1000;
    try {
      await got.post(this.opts.url, {
        json: message,
        timeout: { request: this.opts.timeoutMs ?? 10_000 },
        retry: {
          limit: attempts - 1,
          methods: ['POST'],
          // A receiver that says the message is wrong (4xx) will say so again; the rest is retried.
          statusCodes: [408, 413, 429, 500, 502, 503, 504, 521, 522, 524],
          calculateDelay: ({ attemptCount, computedValue }) =>
            computedValue === 0 ? 0 : Math.min(base * 2 ** (attemptCount - 1), 60_000),
        },
      });
      this.opts.logger.debug(
        { event: message.event, webhook: webhookOriginOnly(this.opts.url) },
        'notification sent',
      );
    } catch (err) {
      this.opts.logger.warn(
        { event: message.event, webhook: webhookOriginOnly(this.opts.url), err: (err as Error).message },
        `notification not delivered after ${attempts} attempts`,
      );
    }
  }
}

/** The notifier of a manifest's `notify.webhook`, or undefined when none is configured. */
export function webhookFromManifest(
  notify: Manifest['notify'],
  opts: { pipeline: string; logger: Logger; env?: NodeJS.ProcessEnv },
): WebhookNotifier | undefined {
  const w = notify?.webhook;
  if (!w) return undefined;
  const resolved = webhookUrl(w, opts.env);
  if ('problem' in resolved) throw new ConfigError(resolved.problem);
  return new WebhookNotifier({
    url: resolved.url,
    events: w.events,
    pipeline: opts.pipeline,
    logger: opts.logger,
  });
}
