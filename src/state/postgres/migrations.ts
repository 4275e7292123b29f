import type pg from 'pg';
import { ConfigError } from '../../util/errors.js';
import { displayUrl } from './url.js';
import { inTransaction } from './tx.js';

// The schema of a PostgreSQL state: the tables of the SQLite state (src/state/store.ts) with
// PostgreSQL types, plus what several workers share (workers, work claims, global limits).
// Versioned migrations recorded in locsync_schema; add new ones at the end only. They run in one
// transaction under an advisory lock, so that workers starting together apply each one once.

export const MIGRATIONS: string[] = [
  // 1: the SQLite state's tables (its migrations 1-4 in one), and the tables of several workers
  `
  CREATE TABLE files (
    mapping text NOT NULL,
    rel_path text NOT NULL,
    size bigint NOT NULL,
    mtime_ms double precision NOT NULL,
    sha256 text NOT NULL,
    seen_at timestamptz NOT NULL,
    verified bigint,
    PRIMARY KEY (mapping, rel_path)
  );
  CREATE TABLE jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    mapping text NOT NULL,
    rel_path text NOT NULL,
    sha256 text NOT NULL,
    target_lang text NOT NULL,
    fingerprint text NOT NULL,
    base_fingerprint text NOT NULL,
    output_path text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'uploaded', 'done', 'failed')),
    document_id text,
    document_key text,
    attempts integer NOT NULL DEFAULT 0,
    billed_characters bigint,
    source_characters bigint,
    error text,
    error_kind text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    finished_at timestamptz,
    upload_started_at timestamptz,
    download_started_ms double precision,
    run_id bigint,
    reused_from bigint,
    lost_downloads integer NOT NULL DEFAULT 0,
    request text,
    unconfirmed_uploads integer NOT NULL DEFAULT 0
  );
  CREATE INDEX jobs_content ON jobs (sha256, fingerprint, status);
  CREATE INDEX jobs_output ON jobs (output_path, status);
  CREATE INDEX jobs_status ON jobs (status);
  CREATE INDEX jobs_source ON jobs (mapping, rel_path, target_lang);
  CREATE TABLE style_lists (
    key text PRIMARY KEY,
    style_id text NOT NULL,
    name text NOT NULL,
    language text NOT NULL,
    version integer NOT NULL,
    hash text NOT NULL,
    applied_at timestamptz NOT NULL
  );
  CREATE TABLE runs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at timestamptz NOT NULL,
    finished_at timestamptz,
    command text NOT NULL,
    status text NOT NULL,
    pid integer NOT NULL,
    host text,
    worker_id text,
    counts jsonb,
    billed_characters bigint NOT NULL DEFAULT 0,
    reason text
  );
  CREATE TABLE snapshots (
    mapping text PRIMARY KEY,
    digest text NOT NULL,
    output_dirs jsonb NOT NULL,
    outputs_digest text NOT NULL,
    files integer NOT NULL,
    taken_at timestamptz NOT NULL
  );

  -- One row per locsync process (sync or watch) that works on this state.
  CREATE TABLE workers (
    id text PRIMARY KEY,
    host text NOT NULL,
    pid integer NOT NULL,
    command text NOT NULL,
    version text NOT NULL,
    started_at timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL,
    lease_seconds double precision NOT NULL,
    stopped_at timestamptz
  );

  -- A unit of work (content, target, settings) held by one worker at a time. The lease runs out
  -- unless the holder renews it; another worker then takes the unit over (takeovers counts that).
  CREATE TABLE work_claims (
    unit text PRIMARY KEY,
    worker_id text NOT NULL,
    lease_until timestamptz NOT NULL,
    job_id bigint,
    claimed_at timestamptz NOT NULL,
    takeovers integer NOT NULL DEFAULT 0
  );
  CREATE INDEX work_claims_worker ON work_claims (worker_id);

  -- The account's limits, held for all workers together: numbered places of each kind
  -- (in_flight: documents uploaded and not yet translated; undownloaded: translated documents not
  -- yet downloaded); a place is free when no worker holds it or its holder's lease ran out.
  CREATE TABLE limit_slots (
    kind text NOT NULL,
    slot integer NOT NULL,
    worker_id text,
    held_until timestamptz,
    PRIMARY KEY (kind, slot)
  );
  CREATE INDEX limit_slots_worker ON limit_slots (worker_id);

  -- Requests per second as one token bucket for the account; paused_until is set when any worker
  -- is told to slow down (429/529 with Retry-After), and every worker waits for it.
  CREATE TABLE rate_buckets (
    name text PRIMARY KEY,
    tokens double precision NOT NULL,
    refilled_at timestamptz NOT NULL,
    paused_until timestamptz NOT NULL
  );
  `,
  // 2: glossaries of the manifest as last applied (hash per language pair: drift and staleness)
  `CREATE TABLE glossaries (
     key text PRIMARY KEY,
     glossary_id text NOT NULL,
     name text NOT NULL,
     hashes jsonb NOT NULL,
     applied_at timestamptz NOT NULL
   );`,
  // 3: the snapshot's digest of each source folder (MappingSnapshot.folders; [folder, digest] pairs)
  `ALTER TABLE snapshots ADD COLUMN folders jsonb;`,
  // 4: content digests by the sha256 of the bytes (SQLite's migration 8): the first scan after it
  // reads each file once, so that a file already translated has its digest before it is next saved.
  `CREATE TABLE content_digests (
     sha256 text PRIMARY KEY,
     digest text NOT NULL,
     parts text NOT NULL
   );
   UPDATE files SET verified = NULL WHERE verified IS NOT NULL;
   DELETE FROM snapshots;`,
  // 5: a file's inode and ctime when hashed (FileRecord.ino): a rename over a file of the same size
  // and mtime changes them. Doubles: the values exactly as Node's fs.Stats gives them.
  `ALTER TABLE files ADD COLUMN ino double precision, ADD COLUMN ctime_ms double precision;`,
];

/** Schema version this code writes (number of migrations). */
export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** The migration that brought content digests (tests replay it on a state made before it). */
export const CONTENT_DIGESTS_MIGRATION = MIGRATIONS.findIndex((m) =>
  m.includes('CREATE TABLE content_digests'),
);

/** Advisory lock keys (64-bit, fixed): the same in every process and every locsync version. */
export const ADVISORY = {
  migrate: 0x6c6f6373_796e6301n,
  styles: 0x6c6f6373_796e6302n,
} as const;

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
 * Bring the schema to PG_SCHEMA_VERSION: one transaction, under an advisory lock (a second process
 * waits, then finds nothing left to do). Refuses a schema newer than this locsync.
 */
export async function migrate(pool: pg.Pool, url: string): Promise<MigrateResult> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY.migrate.toString()]);
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
      await client.query('INSERT INTO locsync_schema (version) VALUES ($1)', [v + 1]);
    }
    return { from, to: MIGRATIONS.length };
  });
}
