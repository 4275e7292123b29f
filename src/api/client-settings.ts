// What a ServiceClient is made with (docs/client.md, "Configuration"): the options as given, and
// the settings they resolve to, checked before anything is sent.

import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import { redactUrl, registerSecret } from '../log/secrets.js';
import { ConfigError } from '../util/errors.js';
import { DEFAULT_RETRY, type RetrySettings } from './retry.js';
import { AUTH_SCHEME } from './types.js';

export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed (1-based); the next one is attempt + 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface ClientOptions {
  /** Base URL of the service (professional or free address), e.g. https://api.example.com. */
  baseUrl: string;
  apiKey: string;
  /** Scheme word of the Authorization header (default Service-Auth-Key). */
  authScheme?: string;
  /** The free plan has no style rules: those calls fail with PlanError before anything is sent. */
  plan?: 'pro' | 'free';
  timeouts?: { connectMs?: number; responseMs?: number; idleMs?: number };
  retry?: Partial<RetrySettings>;
  rateLimit?: { requestsPerSecond?: number; concurrency?: number };
  logger?: Logger;
  onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_TIMEOUTS = { connectMs: 10_000, responseMs: 60_000, idleMs: 120_000 } as const;
export const DEFAULT_RATE_LIMIT = { requestsPerSecond: 50, concurrency: 4 } as const;

export interface ClientSettings {
  /** Without a trailing slash: paths are appended to it. */
  baseUrl: string;
  plan: 'pro' | 'free';
  /** The Authorization header's value. */
  authorization: string;
  retry: RetrySettings;
  timeouts: { connectMs: number; responseMs: number; idleMs: number };
  rateLimit: { requestsPerSecond: number; concurrency: number };
  logger: Logger;
  onRetry: ((info: RetryInfo) => void) | undefined;
}

/** The settings of `opts`, defaults filled in; a bad key, URL or rate limit is a ConfigError. */
export function clientSettings(opts: ClientOptions): ClientSettings {
  if (!opts.apiKey) throw new ConfigError('The API key of the translation service is empty.');
  let base: URL;
  try {
    base = new URL(opts.baseUrl);
  } catch {
    throw new ConfigError(`The service URL "${redactUrl(opts.baseUrl)}" is not a valid URL.`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new ConfigError(
      `The service URL "${redactUrl(opts.baseUrl)}" must start with http:// or https://.`,
    );
  }
  registerSecret(opts.apiKey);
  const retry = { ...DEFAULT_RETRY, ...definedOnly(opts.retry ?? {}) };
  retry.maxAttempts = Math.max(1, Math.floor(retry.maxAttempts));
  const rateLimit = { ...DEFAULT_RATE_LIMIT, ...definedOnly(opts.rateLimit ?? {}) };
  if (!(rateLimit.requestsPerSecond > 0)) throw new ConfigError('requests per second must be positive.');
  if (!(rateLimit.concurrency >= 1)) throw new ConfigError('concurrency must be at least 1.');
  return {
    baseUrl: base.href.replace(/\/+$/, ''),
    plan: opts.plan ?? 'pro',
    authorization: `${opts.authScheme ?? AUTH_SCHEME} ${opts.apiKey}`,
    retry,
    timeouts: { ...DEFAULT_TIMEOUTS, ...definedOnly(opts.timeouts ?? {}) },
    rateLimit,
    logger: opts.logger ?? silentLogger(),
    onRetry: opts.onRetry,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
