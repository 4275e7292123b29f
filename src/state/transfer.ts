import fs from 'node:fs';
import type pg from 'pg';
import { ConfigError } from '../util/errors.js';
import { inTransaction } from './postgres/tx.js';
import { openState } from './store.js';

// Moving a pipeline's state between backends without losing its history: every job (ids kept, so
// reuse and "reused_from" links stay right; document ids and keys of unfinished jobs, so nothing is
// uploaded again), every file record, applied style list and run. Work claims, workers and limits
// are not history and are not moved.

/** The tables moved and their columns common to both backends, in an order that keeps links valid. */
const TABLES = {
  files: ['mapping', 'rel_path', 'size', 'mtime_ms', 'sha256', 'seen_at', 'verified', 'ino', 'ctime_ms'],
  jobs: [
    'id', 'mapping', 'rel_path', 'sha256', 'target_lang', 'fingerprint', 'base_fingerprint', 'output_path',
    'status', 'document_id', 'document_key', 'attempts', 'billed_characters', 'source_characters', 'error',
    'error_kind', 'created_at', 'updated_at', 'finished_at', 'upload_started_at', 'download_started_ms',
    'run_id', 'reused_from', 'lost_downloads', 'request', 'unconfirmed_uploads',
    // A download kept in the spool is delivered from there after the move too (not fetched again).
    'spool_path', 'spool_sha256', 'spool_size', 'spool_holder',
  ],
  style_lists: ['key', 'style_id', 'name', 'language', 'version', 'hash', 'applied_at'],
  runs: ['id', 'started_at', 'finished_at', 'command', 'status', 'pid', 'counts', 'billed_characters', 'reason'],
  snapshots: ['mapping', 'digest', 'output_dirs', 'outputs_digest', 'outputs_stamp', 'files', 'taken_at', 'folders'],
  glossaries: ['key', 'glossary_id', 'name', 'hashes', 'applied_at'],
  content_digests: ['sha256', 'digest', 'parts'],
  // The segment memory is bought translations (method: segments): moved with the rest.
  segment_memory: [
    'key', 'origin', 'source', 'source_lang', 'target_lang', 'settings', 'translation', 'run_id', 'created_at',
    'changed_at', 'document', 'import_id',
  ],
  // What was imported (memory forget --import takes one back after the move too).
  memory_imports: ['id', 'file', 'origin', 'imported_at', 'units'],
  text_requests: ['id', 'job_id', 'run_id', 'texts', 'characters', 'state', 'sent_at', 'answered_at'],
  // The ledger of what the service billed (./billed.ts): report and the budgets count from it.
  charges: ['id', 'job_id', 'document_id', 'characters', 'sure', 'run_id', 'at'],
  // Where each run's segments came from (./leverage-ledger.ts): report's leverage columns.
  segment_leverage: [
    'id', 'job_id', 'run_id', 'repeated_segments', 'repeated_characters', 'reviewed_segments',
    'reviewed_characters', 'machine_segments', 'machine_characters', 'at',
  ],
  // The output checks' verdicts (docs/qa.md): status keeps listing failed and flagged outputs.
  qa_results: [
    'output_path', 'job_id', 'mapping', 'rel_path', 'target_lang', 'outcome', 'findings', 'checked_at',
  ],
  // Outputs waiting for a translator's wording (job ids are kept, so each still names its job).
  imported_wording: ['output_path', 'mapping', 'job_id', 'noted_at'],
} as const; // prettier-ignore

type Table = keyof typeof TABLES;
/** Columns PostgreSQL keeps as jsonb (SQLite: JSON text). */
const JSON_COLUMNS = new Set(['counts', 'output_dirs', 'hashes', 'folders']);
/** Tables whose ids are identity columns in PostgreSQL. */
const IDENTITY: readonly Table[] = [
  'jobs',
  'runs',
  'text_requests',
  'memory_imports',
  'charges',
  'segment_leverage',
];
/** Rows a multi-row INSERT into PostgreSQL carries; rows a page read from it holds. */
const BATCH = 500;
const PAGE = 10_000;
const ORDER: Record<Table, string> = {
  files: 'mapping, rel_path',
  jobs: 'id',
  style_lists: 'key',
  runs: 'id',
  snapshots: 'mapping',
  glossaries: 'key',
  content_digests: 'sha256',
  segment_memory: 'key, origin',
  memory_imports: 'id',
  text_requests: 'id',
  charges: 'id',
  segment_leverage: 'id',
  qa_results: 'output_path',
  imported_wording: 'output_path',
};

export type TransferCounts = Record<Table, number>;

const emptyCounts = (): TransferCounts => ({
  files: 0,
  jobs: 0,
  style_lists: 0,
  runs: 0,
  snapshots: 0,
  glossaries: 0,
  content_digests: 0,
  segment_memory: 0,
  memory_imports: 0,
  text_requests: 0,
  charges: 0,
  segment_leverage: 0,
  qa_results: 0,
  imported_wording: 0,
});

/** Copy a PostgreSQL state into a new SQLite state file (refused when `file` exists). */
export async function exportToSqlite(pool: pg.Pool, file: string): Promise<TransferCounts> {
  if (fs.existsSync(file))
    throw new ConfigError(`${file} exists; export writes a new SQLite state file only`);
  const counts = emptyCounts();
  const st = openState(file);
  try {
    const db = st.db;
    for (const table of Object.keys(TABLES) as Table[]) {
      const cols = TABLES[table];
      const insert = db.prepare(
        `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      );
      // Pages in key order, so that no table is held whole in memory.
      for (let offset = 0; ; offset += PAGE) {
        const r = await pool.query<Record<string, unknown>>(
          `SELECT ${cols.join(', ')} FROM ${table} ORDER BY ${ORDER[table]} LIMIT ${PAGE} OFFSET ${offset}`,
        );
        db.transaction(() => {
          for (const row of r.rows)
            insert.run(
              cols.map((c) => (JSON_COLUMNS.has(c) && row[c] !== null ? JSON.stringify(row[c]) : row[c])),
            );
        })();
        counts[table] += r.rows.length;
        if (r.rows.length < PAGE) break;
      }
    }
  } catch (err) {
    st.close();
    fs.rmSync(file, { force: true });
    throw err;
  }
  st.close();
  return counts;
}

/**
 * Copy a SQLite state file into an empty PostgreSQL state (one transaction: all or nothing).
 * Refused when the PostgreSQL state already holds jobs or files (a merge would mix two histories).
 */
export async function importFromSqlite(pool: pg.Pool, file: string): Promise<TransferCounts> {
  if (!fs.existsSync(file)) throw new ConfigError(`${file}: no such SQLite state file`);
  const counts = emptyCounts();
  const st = openState(file);
  try {
    await inTransaction(pool, async (c) => {
      const used = await c.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM files) + (SELECT count(*) FROM runs) AS n',
      );
      if ((used.rows[0]?.n ?? 0) > 0)
        throw new ConfigError(
          'the PostgreSQL state already holds jobs, files or runs; import into an empty database (locsync state migrate on a new one)',
        );
      for (const table of Object.keys(TABLES) as Table[]) {
        const cols = TABLES[table];
        const rows = st.db
          .prepare(`SELECT ${cols.join(', ')} FROM ${table}`)
          .raw(true)
          .iterate() as IterableIterator<unknown[]>;
        const overriding = IDENTITY.includes(table) ? ' OVERRIDING SYSTEM VALUE' : '';
        let batch: unknown[][] = [];
        const flush = async () => {
          if (!batch.length) return;
          const values = batch
            .map((_, i) => `(${cols.map((__, j) => `$${i * cols.length + j + 1}`).join(', ')})`)
            .join(', ');
          await c.query(
            `INSERT INTO ${table} (${cols.join(', ')})${overriding} VALUES ${values}`,
            batch.flat(),
          );
          counts[table] += batch.length;
          batch = [];
        };
        for (const row of rows) {
          batch.push(row);
          if (batch.length >= BATCH) await flush();
        }
        await flush();
        if (overriding)
          await c.query(
            `SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE(max(id), 1), max(id) IS NOT NULL) FROM ${table}`,
          );
      }
    });
  } finally {
    st.close();
  }
  return counts;
}
