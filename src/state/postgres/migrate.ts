import type pg from 'pg';
import { ConfigError } from '../../util/errors.js';
import { scrubbedErrors, type StoredError } from '../scrub-errors.js';
import { ADVISORY } from './advisory.js';
import { MIGRATIONS, SCRUB_ERRORS_MIGRATION, STATE_TABLES } from './migrations.js';
import { inTransaction } from './tx.js';
import { displayUrl, searchPathOf, withSchema } from './url.js';

// Bringing a PostgreSQL database to this locsync's schema (./migrations.ts): the schema the URL
// names made, another application's tables of the same names refused, a newer schema refused, and
// the missing migrations applied in one transaction under an advisory lock.

export interface MigrateResult {
  from: number;
  to: number;
}

/** The version recorded in the database (0 when it has no locsync schema yet). */
export async function schemaVersion(db: pg.Pool | pg.PoolClient): Promise<number> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('locsync_schema') AS t`);
  if (!exists.rows[0]?.t) return 0;
  const r = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM locsync_schema');
  return r.rows[0]?.v ?? 0;
}

/**
 * The schema the URL's search_path names, made when it does not exist yet (a pipeline's own schema,
 * `?options=-c search_path=NAME`); the database's default schema otherwise.
 */
async function ensureSchema(client: pg.PoolClient, url: string): Promise<void> {
  const current = await client.query<{ s: string | null }>('SELECT current_schema() AS s');
  if (current.rows[0]?.s) return;
  const wanted = searchPathOf(url);
  if (!wanted)
    throw new ConfigError(
      `the PostgreSQL state at ${displayUrl(url)} has no schema to create its tables in (the search_path names none that exists); name one: ${withSchema(url, 'locsync')}`,
    );
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(wanted)}`);
}

/** Tables of a locsync state's names in the current schema that are not a locsync state's. */
export async function foreignTables(
  db: pg.Pool | pg.PoolClient,
): Promise<{ schema: string; tables: string[] }> {
  const r = await db.query<{ schema: string | null; tables: string[] | null }>(
    `SELECT current_schema() AS schema,
            (SELECT array_agg(table_name::text ORDER BY table_name) FROM information_schema.tables
              WHERE table_schema = current_schema() AND table_name = ANY($1)) AS tables`,
    [[...STATE_TABLES]],
  );
  return { schema: r.rows[0]?.schema ?? 'public', tables: r.rows[0]?.tables ?? [] };
}

/**
 * A database whose schema already holds another application's tables of the same names (and no
 * locsync_schema) is not taken: creating them would fail half-way with the driver's message, and
 * writing into them would mix two applications' rows.
 */
export async function refuseForeignTables(db: pg.Pool | pg.PoolClient, url: string): Promise<void> {
  const { schema, tables } = await foreignTables(db);
  if (tables.length === 0) return;
  throw new ConfigError(
    `the PostgreSQL database at ${displayUrl(url)} already holds tables of another application in schema "${schema}" (${tables.join(', ')}); locsync does not mix its state with them. Give locsync a schema of its own (made on first use): state: ${withSchema(url, 'locsync')}, or a database of its own: createdb locsync`,
  );
}

/**
 * Bring the schema to PG_SCHEMA_VERSION: one transaction, under an advisory lock (a second process
 * waits, then finds nothing left to do). Refuses a schema newer than this locsync.
 */
export async function migrate(pool: pg.Pool, url: string): Promise<MigrateResult> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY.migrate.toString()]);
    await ensureSchema(client, url);
    if ((await schemaVersion(client)) === 0) await refuseForeignTables(client, url);
    await client.query(
      `CREATE TABLE IF NOT EXISTS locsync_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await schemaVersion(client);
    if (from > MIGRATIONS.length) {
      throw new ConfigError(
        `the PostgreSQL state at ${displayUrl(url)} has schema version ${from}, newer than this locsync understands (${MIGRATIONS.length}); upgrade locsync on this machine`,
      );
    }
    for (let v = from; v < MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v] as string);
      if (v === SCRUB_ERRORS_MIGRATION) await scrubStoredErrors(client);
      await client.query('INSERT INTO locsync_schema (version) VALUES ($1)', [v + 1]);
    }
    return { from, to: MIGRATIONS.length };
  });
}

/** Errors stored before echoed document keys were redacted, scrubbed (src/state/scrub-errors.ts). */
async function scrubStoredErrors(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<StoredError>(
    'SELECT id, error, document_key FROM jobs WHERE error IS NOT NULL',
  );
  for (const r of scrubbedErrors(rows))
    await client.query('UPDATE jobs SET error = $2 WHERE id = $1', [r.id, r.error]);
}
