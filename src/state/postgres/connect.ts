import os from 'node:os';
import pg from 'pg';
import { registerSecret } from '../../log/secrets.js';
import { ConfigError } from '../../util/errors.js';
import type { PipelineIdentity } from '../pipeline.js';
import { checkPostgresUrl, databaseOf, displayUrl, hostPortOf, userOf } from './url.js';

// The connection pool of a PostgreSQL state. The URL comes from the manifest (`state:`) and never
// holds the password: that comes from the environment (PGPASSWORD, or the variable the manifest's
// `password_env` names), is registered as a secret and never appears in a message.

export interface PostgresStateConfig {
  /** postgres://user@host:5432/db?sslmode=… (no password). */
  url: string;
  /** Environment variable holding the password (default: libpq's PGPASSWORD). */
  passwordEnv?: string;
  /** The pipeline whose state this is: checked against the one the schema records (./pipeline.ts). */
  pipeline?: PipelineIdentity;
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
    connectionString: withUser(cfg.url),
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

/**
 * The role to connect as: the URL's user, else PGUSER, else the operating system's user as libpq
 * does (the driver reads only USER, which service managers may leave unset).
 */
export function connectUser(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const named = userOf(url) || env.PGUSER || env.USER;
  if (named) return named;
  try {
    return os.userInfo().username;
  } catch {
    throw new ConfigError(
      `state: ${displayUrl(url)} names no user, and neither PGUSER nor USER is set nor is there an operating system user name; write the role in the URL (postgres://ROLE@host:5432/database) or set PGUSER`,
    );
  }
}

/** The URL with the role to connect as written in it (the driver lets the URL's empty user win). */
function withUser(url: string): string {
  if (userOf(url)) return url;
  const u = new URL(url);
  u.username = encodeURIComponent(connectUser(url));
  return u.toString();
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

/**
 * Errors of connecting that are the setup's, not an outage: told as describeConnectError does
 * (a refused password, a database or role that does not exist).
 */
export function isSetupError(err: unknown): boolean {
  return ['28P01', '28000', '3D000'].includes((err as { code?: string })?.code ?? '');
}

/** A connection problem as the user should read it (URL without secrets, cause, what to do). */
export function describeConnectError(url: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const { host, port } = hostPortOf(url);
  const db = databaseOf(url);
  const user = userOf(url);
  let cause: string;
  if (e?.code === '28P01')
    cause =
      'password authentication failed (check PGPASSWORD or the variable postgres.password_env names, or ~/.pgpass)';
  else if (e?.code === '3D000')
    cause = `database "${db}" does not exist; create it with: createdb -h ${host} -p ${port}${user ? ` -U ${user}` : ''} ${db}`;
  else if (e?.code === '28000')
    cause = `${e.message ?? 'the role was refused'} (check the user name in the URL, or PGUSER)`;
  else if (e?.code === 'ECONNREFUSED')
    cause = `connection refused by ${host} port ${port} (ECONNREFUSED): is PostgreSQL running there and listening on that port (listen_addresses, port)?`;
  else if (e?.code === 'ENOTFOUND') cause = `the host ${host} is not known (DNS)`;
  else cause = e?.message ?? String(err);
  return `PostgreSQL state at ${displayUrl(url)}: ${cause}`;
}
