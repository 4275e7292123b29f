// The `state:` value as a PostgreSQL URL: recognised, checked and shown without password. No
// import of the driver here: the manifest checks use this on every command.

/** `postgres://` or `postgresql://`: a `state:` value naming a PostgreSQL database. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/** The URL without password, as it may be shown (messages, status, logs). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return '(unreadable PostgreSQL URL)';
  }
}

/** What is wrong with a `state:` URL (unparseable, no host or database, a password in it), if anything. */
export function checkPostgresUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `state: "${url}" is not a valid PostgreSQL URL (postgres://user@host:5432/database)`;
  }
  if (u.password)
    return `state: the URL holds a password; remove it from the manifest and set PGPASSWORD (or the variable named by postgres.password_env) instead`;
  if (!u.hostname) return `state: ${displayUrl(url)} names no host`;
  if (u.pathname.length <= 1)
    return `state: ${displayUrl(url)} names no database (postgres://user@host:5432/database)`;
  return undefined;
}
