import { BACKFILL_CHARGES, chargesTable } from '../billed.js';
import { leverageTable } from '../leverage-ledger.js';
import { SCRUB_STORED_ERRORS } from '../scrub-errors.js';

// The schema of state.db as versioned migrations (PRAGMA user_version): add new ones at the end only.

export const MIGRATIONS: string[] = [
  // 1: initial schema
  `
  CREATE TABLE files (
    mapping TEXT NOT NULL,
    rel_path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    sha256 TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (mapping, rel_path)
  );
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    mapping TEXT NOT NULL,
    rel_path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    target_lang TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    base_fingerprint TEXT NOT NULL,
    output_path TEXT NOT NULL,
    status TEXT NOT NULL,
    document_id TEXT,
    document_key TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    billed_characters INTEGER,
    source_characters INTEGER,
    error TEXT,
    error_kind TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT,
    upload_started_at TEXT,
    download_started_ms REAL,
    run_id INTEGER,
    reused_from INTEGER,
    lost_downloads INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX jobs_content ON jobs (sha256, fingerprint, status);
  CREATE INDEX jobs_output ON jobs (output_path, status);
  CREATE INDEX jobs_status ON jobs (status);
  CREATE INDEX jobs_source ON jobs (mapping, rel_path, target_lang);
  CREATE TABLE style_lists (
    key TEXT PRIMARY KEY,
    style_id TEXT NOT NULL,
    name TEXT NOT NULL,
    language TEXT NOT NULL,
    version INTEGER NOT NULL,
    hash TEXT NOT NULL,
    applied_at TEXT NOT NULL
  );
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    command TEXT NOT NULL,
    status TEXT NOT NULL,
    pid INTEGER NOT NULL,
    counts TEXT,
    billed_characters INTEGER NOT NULL DEFAULT 0
  );
  `,
  // 2: the upload request of a job (settings as sent, no secrets), to resume or re-upload it alone
  `ALTER TABLE jobs ADD COLUMN request TEXT;`,
  // 3: uploads repeated because a crash hid whether the previous one arrived (reported, may be billed twice)
  `ALTER TABLE jobs ADD COLUMN unconfirmed_uploads INTEGER NOT NULL DEFAULT 0;`,
  // 4: the no-op fast paths: a file whose outputs were all found up to date (FileRecord.verified), and
  // a mapping whose every file was (snapshots: a digest of its listing, see mappingSnapshot)
  `ALTER TABLE files ADD COLUMN verified INTEGER;
   CREATE TABLE snapshots (
     mapping TEXT PRIMARY KEY,
     digest TEXT NOT NULL,
     output_dirs TEXT NOT NULL,
     outputs_digest TEXT NOT NULL,
     files INTEGER NOT NULL,
     taken_at TEXT NOT NULL
   );`,
  // 5: why a run stopped early or failed (RunStopReason)
  `ALTER TABLE runs ADD COLUMN reason TEXT;`,
  // 6: glossaries of the manifest as last applied (hash per language pair: drift and staleness)
  `CREATE TABLE glossaries (
     key TEXT PRIMARY KEY,
     glossary_id TEXT NOT NULL,
     name TEXT NOT NULL,
     hashes TEXT NOT NULL,
     applied_at TEXT NOT NULL
   );`,
  // 7: the snapshot's digest of each source folder (MappingSnapshot.folders; JSON [folder, digest] pairs)
  `ALTER TABLE snapshots ADD COLUMN folders TEXT;`,
  // 8: content digests (src/documents/digest) by the sha256 of the bytes they were made from, with the
  // per-part summary `plan --why` compares. The first scan after this reads each file once (marks and
  // snapshots dropped) so that a file already translated has its digest before it is next saved.
  `CREATE TABLE content_digests (
     sha256 TEXT PRIMARY KEY,
     digest TEXT NOT NULL,
     parts TEXT NOT NULL
   );
   UPDATE files SET verified = NULL WHERE verified IS NOT NULL;
   DELETE FROM snapshots;`,
  // 9: a file's inode and ctime when hashed (FileRecord.ino): a rename over a file of the same size
  // and mtime changes them. REAL: the values exactly as Node's fs.Stats gives them.
  `ALTER TABLE files ADD COLUMN ino REAL;
   ALTER TABLE files ADD COLUMN ctime_ms REAL;`,
  // 10: the pipeline this state belongs to (src/state/pipeline.ts): a second manifest is refused
  `CREATE TABLE pipeline (
     only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
     name TEXT NOT NULL,
     manifest TEXT NOT NULL,
     host TEXT NOT NULL,
     adopted_at TEXT NOT NULL
   );`,
  // 11: what a done job wrote at its output (JobRecord.output_sha256): an output that differs from it
  // was edited by a person and is not overwritten (src/sync/run/edited-output.ts). Null: not recorded
  // (jobs done before this, or a record lost): today's rule, the output is replaced.
  `ALTER TABLE jobs ADD COLUMN output_sha256 TEXT;
   ALTER TABLE jobs ADD COLUMN output_size INTEGER;
   ALTER TABLE jobs ADD COLUMN output_mtime_ms REAL;`,
  // 12: the segment memory (method: segments, docs/segments.md): translated segments by the digest of
  // their tagged source, languages and translation settings, a reviewed one beside the service's; and
  // every text request, recorded before it is sent (billed once the service takes it).
  `CREATE TABLE segment_memory (
     key TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('service', 'reviewed')),
     source TEXT NOT NULL,
     source_lang TEXT,
     target_lang TEXT NOT NULL,
     settings TEXT NOT NULL,
     translation TEXT NOT NULL,
     run_id INTEGER,
     created_at TEXT NOT NULL,
     PRIMARY KEY (key, origin)
   );
   CREATE TABLE text_requests (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     job_id INTEGER NOT NULL,
     run_id INTEGER,
     texts INTEGER NOT NULL,
     characters INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('sent', 'answered', 'lost')),
     sent_at TEXT NOT NULL,
     answered_at TEXT
   );
   CREATE INDEX text_requests_job ON text_requests (job_id, state);`,
  // 13: the output checks' last verdict per output (src/qa, docs/qa.md): pass, flagged or failed,
  // with the findings (JSON) and where in the document each is
  `CREATE TABLE qa_results (
     output_path TEXT PRIMARY KEY,
     job_id INTEGER NOT NULL,
     mapping TEXT NOT NULL,
     rel_path TEXT NOT NULL,
     target_lang TEXT NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('pass', 'flagged', 'failed')),
     findings TEXT NOT NULL,
     checked_at TEXT NOT NULL
   );
   CREATE INDEX qa_results_outcome ON qa_results (outcome);`,
  // 14: errors stored before echoed document keys were redacted: scrubbed once (../scrub-errors.ts,
  // run by the store right after this step, in its transaction: SQL cannot call the scrubber)
  `${SCRUB_STORED_ERRORS} SELECT 1;`,
  // 15: a download received in full and kept in the spool, not yet written to its output
  // (JobRecord.spool_path): the next run delivers it from there instead of asking the service again
  `ALTER TABLE jobs ADD COLUMN spool_path TEXT;
   ALTER TABLE jobs ADD COLUMN spool_sha256 TEXT;
   ALTER TABLE jobs ADD COLUMN spool_size INTEGER;
   ALTER TABLE jobs ADD COLUMN spool_holder TEXT;`,
  // 16: translation memories brought in (docs/memory.md): origin imported beside service and
  // reviewed (the table is made again: SQLite cannot change a CHECK), when a row last changed where it
  // came from (the newest duplicate wins), the document it came from, and the import that stored it
  // (memory_imports: memory forget --import takes one back).
  `CREATE TABLE segment_memory_16 (
     key TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('service', 'reviewed', 'imported')),
     source TEXT NOT NULL,
     source_lang TEXT,
     target_lang TEXT NOT NULL,
     settings TEXT NOT NULL,
     translation TEXT NOT NULL,
     run_id INTEGER,
     created_at TEXT NOT NULL,
     changed_at TEXT,
     document TEXT,
     import_id INTEGER,
     PRIMARY KEY (key, origin)
   );
   INSERT INTO segment_memory_16 (key, origin, source, source_lang, target_lang, settings, translation, run_id, created_at)
     SELECT key, origin, source, source_lang, target_lang, settings, translation, run_id, created_at FROM segment_memory;
   DROP TABLE segment_memory;
   ALTER TABLE segment_memory_16 RENAME TO segment_memory;
   CREATE INDEX segment_memory_import ON segment_memory (import_id) WHERE import_id IS NOT NULL;
   CREATE TABLE memory_imports (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     file TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('reviewed', 'imported')),
     imported_at TEXT NOT NULL,
     units INTEGER NOT NULL
   );`,
  // 17: the ledger of what the service billed, one row per document billed or possibly billed
  // (../billed.ts), filled from the bills the jobs recorded so far
  `${chargesTable(
    'INTEGER PRIMARY KEY AUTOINCREMENT',
    "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
    'TEXT',
    'INTEGER',
  )}
   ${BACKFILL_CHARGES}`,
  // 18: outputs waiting for wording a person gave (xliff import, docs/xliff.md), until a delivery
  // after the job noted (../wording-types.ts); before, imported-wording.json in the state folder
  `CREATE TABLE imported_wording (
     output_path TEXT PRIMARY KEY,
     mapping TEXT NOT NULL,
     job_id INTEGER NOT NULL,
     noted_at TEXT NOT NULL
   );`,
  // 19: where each segment job's segments came from in its run (../leverage-ledger.ts): repeated in
  // the run, from the memory reviewed or imported, from the memory machine
  leverageTable(
    'INTEGER PRIMARY KEY AUTOINCREMENT',
    "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
    'INTEGER',
  ),
  // 20: the request a text_requests row is a document's share of (../billed.ts): one request packed
  // across documents has a row per document, and is counted once
  `ALTER TABLE text_requests ADD COLUMN request TEXT;`,
  // 21: the snapshot's digest of its output folders' stamps (MappingSnapshot.outputsStamp)
  `ALTER TABLE snapshots ADD COLUMN outputs_stamp TEXT;`,
];

/** Schema version this code writes (number of migrations). */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The migration after which the stored errors are scrubbed (src/state/scrub-errors.ts). */
export const SCRUB_ERRORS_MIGRATION = MIGRATIONS.findIndex((m) => m.startsWith(SCRUB_STORED_ERRORS));

/** The migration that brought content digests (tests replay it on a state made before it). */
export const CONTENT_DIGESTS_MIGRATION = MIGRATIONS.findIndex((m) =>
  m.includes('CREATE TABLE content_digests'),
);
