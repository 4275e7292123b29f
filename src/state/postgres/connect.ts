import pg from 'pg';
import { registerSecret } from '../../log/secrets.js';
import { ConfigError } from '../../util/errors.js';
import { checkPostgresUrl, displayUrl } from './url.js';

// The connection pool of a PostgreSQL state. The URL comes from the manifest (`state:`) and never
// holds the password: that comes from the environment (PGPASSWORD, or the variable the manifest's
// `password_env` names), is registered as a secret and never appears in a message.

export interface PostgresStateConfig {
  /** postgres://user@host:5432/db?sslmode=… (no password). */
  url: string;
  /** Environment variable holding the password (default: libpq's PGPASSWORD). */
  passwordEnv?: string;
}

/** The password to use: the named variable (which must be set), else PGPASSWORD, else none. */
export function resolvePassword(
  cfg: PostgresStateConfig,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (cfg.passwordEnv) {
    const value = env[cfg.passwordEnv];
    if (value === undefined)
      throw new ConfigError(
        `state: password_env names ${cfg.passwordEnv}, which is not set; export it with the password of ${displayUrl(cfg.url)}`,
      );
    return value;
  }
  return env.PGPASSWORD;
}

// int8 (counts, ids, sizes) as numbers: every value locsync stores is far below 2^53.
// timestamptz as ISO 8601 strings, the form the SQLite state returns.
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return (v: string) => Number(v);
    if (oid === pg.types.builtins.TIMESTAMPTZ) return (v: string) => new Date(v).toISOString();
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/** Open a pool (no connection is made until the first query). */
export function createPool(
  cfg: PostgresStateConfig,
  opts: { max?: number; applicationName?: string } = {},
): pg.Pool {
  const problem = checkPostgresUrl(cfg.url);
  if (problem) throw new ConfigError(problem);
  const password = resolvePassword(cfg);
  registerSecret(password);
  const pool = new pg.Pool({
    connectionString: cfg.url,
    ...(password !== undefined ? { password } : {}),
    max: opts.max ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: opts.applicationName ?? 'locsync',
    types: TYPES,
  });
  // An idle connection cut by the server (restart, failover) must not end the process: the next
  // query gets a fresh connection or a clear error.
  pool.on('error', () => undefined);
  return pool;
}

/** Connection errors that mean "the server cannot be reached now" (worth waiting for). */
export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e) return false;
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(e.code ?? '')
  )
    return true;
  // 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 08xxx connection exceptions,
  // 53300 every connection slot taken (max_connections, or the role's limit): other workers or
  // clients give theirs back, so it is waited out like an outage rather than failing the run.
  if (e.code && (/^57P0[123]$/.test(e.code) || e.code === '53300' || e.code.startsWith('08'))) return true;
  return /Connection terminated|timeout expired|connection timeout|Client has encountered a connection error/i.test(
    e.message ?? '',
  );
}

/** A connection problem as the user should read it (URL without password, cause, what to check). */
export function describeConnectError(url: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const cause = e?.code === '28P01' ? 'password authentication failed' : (e?.message ?? String(err));
  return `PostgreSQL state at ${displayUrl(url)}: ${cause}`;
}
