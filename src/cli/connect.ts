// The composition root of the service: the connection a command works with, a ServiceClient for the
// manifest's service or, when the manifest names no url, the embedded local service and a client for
// it. It lives with the CLI so that no lower layer depends on the manifest loader or the local service.

import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Logger } from '../log/logger.js';
import { registerSecret } from '../log/secrets.js';
import type { LoadedManifest } from '../manifest/load.js';
import type { Manifest } from '../manifest/schema.js';
import type { RunningService } from '../local-service/types.js';
import { ServiceClient } from '../api/client.js';
import type { ClientOptions } from '../api/client-settings.js';
import { serviceApiKey } from './api-key.js';

/** What openConnection reads of a loaded manifest (src/manifest/load.ts). */
export type ConnectManifest = Pick<LoadedManifest, 'path' | 'dir' | 'manifest'>;

export interface Connection {
  client: ServiceClient;
  /**
   * The service account, as a fingerprint of its key (never the key): workers of every pipeline
   * on one PostgreSQL database that use one account share its limits.
   */
  account: string;
  /** The embedded local service, when the manifest names no service url. */
  embedded: RunningService | undefined;
  /** Closes the client's connections and stops the embedded service, if any. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Where the API key is looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Folder of the state file: the embedded service keeps its jobs in `<stateDir>/service`. */
  stateDir: string;
  /** Called before each retry of a request (metrics of `locsync watch`). */
  onRetry?: ClientOptions['onRetry'];
}

/**
 * The client options of the manifest's `service` section (seconds become milliseconds); the client
 * resolves them to its settings (src/api/client-settings.ts).
 */
export function clientOptionsOf(
  service: Manifest['service'],
): Omit<ClientOptions, 'baseUrl' | 'apiKey' | 'logger' | 'onRetry'> {
  return {
    authScheme: service.auth_scheme,
    plan: service.plan,
    timeouts: {
      connectMs: service.timeouts.connect * 1000,
      responseMs: service.timeouts.response * 1000,
      idleMs: service.timeouts.idle * 1000,
    },
    retry: { maxAttempts: service.retry.max_attempts, maxWaitMs: service.retry.max_wait * 1000 },
    rateLimit: { requestsPerSecond: service.requests_per_second, concurrency: service.concurrency },
  };
}

export async function openConnection(loaded: ConnectManifest, opts: ConnectOptions): Promise<Connection> {
  const service = loaded.manifest.service;
  const settings = clientOptionsOf(service);
  const logger = {
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
  };

  const apiKey = serviceApiKey(loaded, opts.env);
  if (service.url !== undefined && apiKey !== undefined) {
    const client = new ServiceClient({ ...settings, ...logger, baseUrl: service.url, apiKey });
    return {
      client,
      account: accountFingerprint(apiKey),
      embedded: undefined,
      close: async () => client.close(),
    };
  }

  const authKey = randomBytes(24).toString('base64url');
  registerSecret(authKey);
  const local = service.local;
  // Loaded only here: the local service and its engine are heavy (parsers, fonts, fastify), and every
  // command with a service url would otherwise pay for them at start.
  const { startService } = await import('../local-service/index.js');
  const embedded = await startService({
    host: '127.0.0.1',
    port: 0,
    authKey,
    plan: service.plan,
    dataDir: join(opts.stateDir, 'service'),
    ...(local.phrasebook !== undefined ? { phrasebookPath: resolve(loaded.dir, local.phrasebook) } : {}),
    queueSeconds: local.queue_seconds,
    translateSeconds: local.translate_seconds,
    workers: service.concurrency,
    maxUndownloaded: service.max_undownloaded,
  });
  const client = new ServiceClient({ ...settings, ...logger, baseUrl: embedded.url, apiKey: authKey });
  return {
    client,
    // Each process's embedded service is an account of its own.
    account: `embedded:${randomBytes(6).toString('hex')}`,
    embedded,
    close: async () => {
      client.close();
      await embedded.close();
    },
  };
}

/** A service account as it may be stored and shown: the first 16 hex digits of the key's SHA-256. */
export function accountFingerprint(apiKey: string): string {
  return `key:${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}
