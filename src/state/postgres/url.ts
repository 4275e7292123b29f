// The `state:` value as a PostgreSQL URL: recognised, checked and shown without secrets. No
// import of the driver here: the manifest checks use this on every command.

import { redactUrl } from '../../log/secrets.js';

/** `postgres://` or `postgresql://`: a `state:` value naming a PostgreSQL database. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Query parameters that carry a secret or say where one is (libpq's `password`, `passfile`,
 * `sslpassword`): refused in a manifest (a manifest is kept in git), never shown.
 */
const SECRET_PARAMS = ['password', 'passfile', 'sslpassword'];

const isSecretParam = (name: string) => SECRET_PARAMS.includes(name.toLowerCase());

/**
 * The URL as it may be shown (messages, status, logs, JSON): redactUrl's form (a password and
 * secret query values as `***`), the one every command uses.
 */
export function displayUrl(url: string): string {
  return redactUrl(url);
}

/** Host and port the URL connects to (libpq's defaults: localhost, 5432). */
export function hostPortOf(url: string): { host: string; port: number } {
  try {
    const u = new URL(url);
    return { host: decodeURIComponent(u.hostname) || 'localhost', port: Number(u.port) || 5432 };
  } catch {
    return { host: 'localhost', port: 5432 };
  }
}

/** The database the URL names (its path without the leading slash). */
export function databaseOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return '';
  }
}

/** The user name in the URL, if any. */
export function userOf(url: string): string | undefined {
  try {
    const user = decodeURIComponent(new URL(url).username);
    return user || undefined;
  } catch {
    return undefined;
  }
}

/** The first schema of `?options=-c search_path=…`, if the URL names one. */
export function searchPathOf(url: string): string | undefined {
  try {
    const options = new URL(url).searchParams.get('options') ?? '';
    const m = /(?:^|\s)-c\s*search_path=("?)([^,\s"]+)\1/.exec(options);
    return m?.[2];
  } catch {
    return undefined;
  }
}

/**
 * `url` with its tables in schema `schema` (`?options=-c search_path=…`, written as the URL
 * encodes it, so that it can be pasted into the manifest), shown redacted.
 */
export function withSchema(url: string, schema: string): string {
  return displayUrl(urlWithSchema(url, schema));
}

/** `url` whose `options=` sets search_path to `schema` (any other `options=` replaced). */
export function urlWithSchema(url: string, schema: string): string {
  const option = `-c%20search_path%3D${encodeURIComponent(schema)}`;
  const base = url.replace(/([?&])options=[^&#]*&?/, '$1').replace(/[?&]$/, '');
  return `${base}${base.includes('?') ? '&' : '?'}options=${option}`;
}

/** A schema name for a pipeline's name (lower case, letters, digits and _). */
export function schemaNameFor(pipeline: string): string {
  const name = pipeline
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[a-z_]/.test(name) ? name : `p_${name}`;
}

/** What is wrong with a `state:` URL (unparseable, no host or database, a secret in it), if anything. */
export function checkPostgresUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `state: "${displayUrl(url)}" is not a valid PostgreSQL URL (postgres://user@host:5432/database)`;
  }
  const fix =
    'remove it from the manifest and set PGPASSWORD (or the variable named by postgres.password_env), or keep it in ~/.pgpass (libpq reads it by itself)';
  if (u.password) return `state: the URL holds a password; ${fix}`;
  const secret = [...u.searchParams.keys()].find(isSecretParam);
  if (secret) return `state: the URL's query holds \`${secret}=\` (${displayUrl(url)}); ${fix}`;
  if (!u.hostname) return `state: ${displayUrl(url)} names no host`;
  if (u.pathname.length <= 1)
    return `state: ${displayUrl(url)} names no database (postgres://user@host:5432/database)`;
  return undefined;
}
