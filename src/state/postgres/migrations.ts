import { BACKFILL_CHARGES, chargesTable } from '../billed.js';
import { leverageTable } from '../leverage-ledger.js';
import { SCRUB_STORED_ERRORS } from '../scrub-errors.js';

// The schema of a PostgreSQL state: the tables of the SQLite state (src/state/store.ts) with
// PostgreSQL types, plus what several workers share (workers, work claims, global limits).
// Versioned migrations recorded in locsync_schema; add new ones at the end only. ./migrate.ts runs
// them (one transaction under an advisory lock, so that workers starting together apply each once).

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
  // 6: pipelines sharing a database (docs/postgres.md): the pipeline whose state this schema is
  // (one row), the budget reserved by uploads not billed yet, and the account's limits moved to a
  // schema every pipeline's schema shares, kept per service account (a fingerprint of the key).
  `
  CREATE TABLE locsync_pipeline (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    name text NOT NULL,
    manifest text NOT NULL,
    host text NOT NULL,
    adopted_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE budget_reservations (
    job_id bigint PRIMARY KEY,
    worker_id text NOT NULL,
    characters bigint NOT NULL,
    reserved_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE SCHEMA IF NOT EXISTS locsync_account;
  CREATE TABLE IF NOT EXISTS locsync_account.limit_slots (
    account text NOT NULL,
    kind text NOT NULL,
    slot integer NOT NULL,
    worker_id text,
    held_until timestamptz,
    PRIMARY KEY (account, kind, slot)
  );
  CREATE INDEX IF NOT EXISTS limit_slots_worker ON locsync_account.limit_slots (worker_id);
  CREATE TABLE IF NOT EXISTS locsync_account.rate_buckets (
    account text PRIMARY KEY,
    tokens double precision NOT NULL,
    refilled_at timestamptz NOT NULL,
    paused_until timestamptz NOT NULL
  );
  DROP TABLE limit_slots;
  DROP TABLE rate_buckets;
  `,
  // 7: what a done job wrote at its output (SQLite's migration 11): an output that differs from it
  // was edited by a person and is not overwritten (src/sync/run/edited-output.ts).
  `ALTER TABLE jobs ADD COLUMN output_sha256 text, ADD COLUMN output_size double precision,
     ADD COLUMN output_mtime_ms double precision;`,
  // 8: reuse across pipelines (docs/postgres.md): whether this pipeline opted in (its manifest's
  // reuse: across_pipelines, recorded by its workers; other pipelines read its done jobs only while
  // it says so), and which of its copies came from another pipeline.
  `
  ALTER TABLE locsync_pipeline ADD COLUMN reuse_across boolean NOT NULL DEFAULT false;
  CREATE TABLE reused_across (
    job_id bigint PRIMARY KEY,
    from_pipeline text NOT NULL,
    from_job_id bigint NOT NULL
  );
  `,
  // 9: the segment memory and the text requests (SQLite's migration 12; docs/segments.md).
  `
  CREATE TABLE segment_memory (
    key text NOT NULL,
    origin text NOT NULL CHECK (origin IN ('service', 'reviewed')),
    source text NOT NULL,
    source_lang text,
    target_lang text NOT NULL,
    settings text NOT NULL,
    translation text NOT NULL,
    run_id bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (key, origin)
  );
  CREATE TABLE text_requests (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id bigint NOT NULL,
    run_id bigint,
    texts integer NOT NULL,
    characters bigint NOT NULL,
    state text NOT NULL CHECK (state IN ('sent', 'answered', 'lost')),
    sent_at timestamptz NOT NULL DEFAULT now(),
    answered_at timestamptz
  );
  CREATE INDEX text_requests_job ON text_requests (job_id, state);
  `,
  // 10: the output checks' last verdict per output (SQLite's migration 13; src/qa, docs/qa.md)
  `
  CREATE TABLE qa_results (
    output_path text PRIMARY KEY,
    job_id bigint NOT NULL,
    mapping text NOT NULL,
    rel_path text NOT NULL,
    target_lang text NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('pass', 'flagged', 'failed')),
    findings text NOT NULL,
    checked_at text NOT NULL
  );
  CREATE INDEX qa_results_outcome ON qa_results (outcome);
  `,
  // 11: errors stored before echoed document keys were redacted: scrubbed once (../scrub-errors.ts,
  // run by migrate() right after this step, in its transaction: SQL cannot call the scrubber)
  `${SCRUB_STORED_ERRORS} SELECT 1;`,
  // 12: segments a worker is sending right now (method: segments), by memory key: another worker of
  // the pipeline waits for their answer instead of paying for them again (./segment-claims.ts).
  `
  CREATE TABLE segment_claims (
    key text PRIMARY KEY,
    worker_id text NOT NULL,
    claimed_at timestamptz NOT NULL
  );
  CREATE INDEX segment_claims_worker ON segment_claims (worker_id);
  `,
  // 13: a download received in full and kept in a worker's spool, not yet written to its output
  // (SQLite's migration 15): whoever resumes the job delivers it from there, or knows whose spool
  // holds it (spool_holder: that worker's id).
  `ALTER TABLE jobs ADD COLUMN spool_path text, ADD COLUMN spool_sha256 text, ADD COLUMN spool_size bigint,
     ADD COLUMN spool_holder text;`,
  // 14: translation memories brought in (SQLite's migration 16; docs/memory.md): origin imported,
  // when a row last changed where it came from, its document, and the import that stored it.
  `
  ALTER TABLE segment_memory DROP CONSTRAINT segment_memory_origin_check,
    ADD CONSTRAINT segment_memory_origin_check CHECK (origin IN ('service', 'reviewed', 'imported')),
    ADD COLUMN changed_at text, ADD COLUMN document text, ADD COLUMN import_id bigint;
  CREATE INDEX segment_memory_import ON segment_memory (import_id) WHERE import_id IS NOT NULL;
  CREATE TABLE memory_imports (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    file text NOT NULL,
    origin text NOT NULL CHECK (origin IN ('reviewed', 'imported')),
    imported_at text NOT NULL,
    units bigint NOT NULL
  );
  `,
  // 15: the ledger of what the service billed (SQLite's migration 17; ../billed.ts), filled from
  // the bills the jobs recorded so far
  `${chargesTable('bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY', 'timestamptz NOT NULL DEFAULT now()', 'text', 'bigint')}
   ${BACKFILL_CHARGES}`,
  // 16: outputs waiting for wording a person gave (SQLite's migration 18; ../wording-types.ts): in
  // the database, so that every worker's sync writes what one machine imported
  `CREATE TABLE imported_wording (
     output_path text PRIMARY KEY,
     mapping text NOT NULL,
     job_id bigint NOT NULL,
     noted_at timestamptz NOT NULL
   );`,
  // 17: where each segment job's segments came from in its run (SQLite's migration 19;
  // ../leverage-ledger.ts)
  leverageTable(
    'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
    'timestamptz NOT NULL DEFAULT now()',
    'bigint',
  ),
  // 18: the request a text_requests row is a document's share of (SQLite's migration 20; ../billed.ts)
  `ALTER TABLE text_requests ADD COLUMN request text;`,
  // 19: the snapshot's digest of its output folders' stamps (SQLite's migration 21)
  `ALTER TABLE snapshots ADD COLUMN outputs_stamp text;`,
];

/** The tables a locsync state makes in its schema (another application's of the same name are refused). */
export const STATE_TABLES = [
  'files',
  'jobs',
  'style_lists',
  'runs',
  'snapshots',
  'workers',
  'work_claims',
  'limit_slots',
  'rate_buckets',
  'glossaries',
  'content_digests',
  'locsync_pipeline',
  'qa_results',
  'budget_reservations',
  'reused_across',
  'segment_memory',
  'text_requests',
  'segment_claims',
  'memory_imports',
  'charges',
  'imported_wording',
  'segment_leverage',
] as const;

/** Schema version this code writes (number of migrations). */
export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** The migration after which the stored errors are scrubbed (src/state/scrub-errors.ts). */
export const SCRUB_ERRORS_MIGRATION = MIGRATIONS.findIndex((m) => m.startsWith(SCRUB_STORED_ERRORS));

/** The migration that brought content digests (tests replay it on a state made before it). */
export const CONTENT_DIGESTS_MIGRATION = MIGRATIONS.findIndex((m) =>
  m.includes('CREATE TABLE content_digests'),
);
