import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../util/errors.js';
import { isStateDamage, noteStateOpened, StateDamagedError } from '../integrity.js';
import { networkFsType } from '../netfs.js';
import { SqliteContentDigests } from './digests.js';
import { SqliteTranslationMemory } from './memory.js';
import { SqliteSegmentMemory } from './segments.js';
import { SqliteImportedWording } from './imported-wording.js';
import { SqliteQaResults } from './qa-results.js';
import { SqliteFileInventory, SqliteRunLog } from './inventory.js';
import { SqliteJobLedger } from './ledger.js';
import { SqliteFileRows } from './file-rows.js';
import { jobTable, type SqliteJobRows } from './job-rows.js';
import { SqliteRunRows } from './run-rows.js';
import { SqliteStyleRows } from './style-rows.js';
import { MIGRATIONS, SCRUB_ERRORS_MIGRATION } from './migrations.js';
import { scrubbedErrors, type StoredError } from '../scrub-errors.js';
import { SqliteGlossaryState } from '../glossaries.js';
import type { FileRecord, HashedFile, ListedFile, MappingSnapshot } from '../file-types.js';
import type { JobRecord } from '../job-types.js';
import type { RunRecord } from '../run-types.js';
import type {
  AppliedGlossary,
  AppliedStyle,
  GlossaryStateStore,
  StyleStateStore,
} from '../terminology-types.js';
import type { SyncState } from '../types.js';

// The pipeline's memory: state.db (SQLite, WAL), created with mode 0600. This module opens it
// (local disk, pragmas, migrations: ./migrations.ts, PRAGMA user_version) and composes one module
// per table, as the PostgreSQL store does: files and snapshots (./file-rows.ts), jobs with the
// document_id and secret document_key of every upload (./job-rows.ts), style lists applied
// (./style-rows.ts), runs (./run-rows.ts), content digests, segment memory, QA results, glossaries.

/** Raise a ConfigError when `dir` (or its nearest existing ancestor) lies on a network filesystem. */
export function assertLocalFilesystem(statePath: string): void {
  let probe = path.resolve(statePath);
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  let real = probe;
  try {
    real = fs.realpathSync(probe);
  } catch {
    /* keep probe */
  }
  const fsType = networkFsType(real);
  if (fsType) {
    throw new ConfigError(
      `state file ${statePath} is on a network filesystem (${fsType}): SQLite's locking is unreliable there ` +
        `and the state could be corrupted. Set \`state:\` in the manifest to a path on a local disk ` +
        `(e.g. state: /var/lib/locsync/<pipeline>/state.db); sources and outputs may stay on the share.`,
    );
  }
}

/** The page cache of the state's connection, in KiB. */
const PAGE_CACHE_KIB = 2000;

export class StateStore implements StyleStateStore, SyncState {
  readonly path: string;
  readonly db: Database.Database;
  /** state.db's tables, one module each; their synchronous reads are also the store's own below. */
  readonly fileRows: SqliteFileRows;
  readonly jobRows: SqliteJobRows;
  readonly styleRows: SqliteStyleRows;
  readonly runRows: SqliteRunRows;
  /**
   * The job rows, written by this ledger only: the jobs table hands its writes to it alone (the
   * run's ledger, src/sync/run/run-ledger.ts, is the one caller of its transitions).
   */
  readonly jobs: SqliteJobLedger;
  readonly files: SqliteFileInventory;
  readonly runs: SqliteRunLog;
  readonly digests: SqliteContentDigests;
  readonly segments: SqliteSegmentMemory;
  readonly memory: SqliteTranslationMemory;
  readonly qaResults: SqliteQaResults;
  readonly importedWording: SqliteImportedWording;
  /** Glossaries as last applied (src/styles/glossary-reconcile.ts). */
  readonly glossaries: GlossaryStateStore;

  constructor(statePath: string) {
    this.path = path.resolve(statePath);
    assertLocalFilesystem(this.path);
    fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    // Create the file with mode 0600 before SQLite opens it (SQLite would use 0644).
    fs.closeSync(fs.openSync(this.path, 'a', 0o600));
    fs.chmodSync(this.path, 0o600);
    this.db = new Database(this.path);
    noteStateOpened(this.path);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = ON');
      // SQLite's own default page cache (better-sqlite3 builds it with 16 MB): a scan that reads a
      // state of 100,000s of files and jobs, and a backup, fill the whole cache, which stays in the
      // process for the rest of the run; lookups by index need only the pages on their path.
      this.db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
      this.migrate();
    } catch (err) {
      this.db.close();
      throw isStateDamage(err) ? new StateDamagedError(this.path, err) : err;
    }
    // WAL and shared-memory files hold the same secrets: same mode.
    for (const extra of ['-wal', '-shm']) {
      try {
        fs.chmodSync(this.path + extra, 0o600);
      } catch {
        /* not created yet */
      }
    }
    this.fileRows = new SqliteFileRows(this.db);
    const jobTableRows = jobTable(this.db, this.fileRows);
    this.jobRows = jobTableRows.rows;
    this.jobs = new SqliteJobLedger(jobTableRows.rows, jobTableRows.writes, () => this.db.open);
    this.styleRows = new SqliteStyleRows(this.db);
    this.runRows = new SqliteRunRows(this.db);
    this.files = new SqliteFileInventory(this.fileRows);
    this.runs = new SqliteRunLog(this.runRows);
    this.glossaries = new SqliteGlossaryState(this.db);
    this.digests = new SqliteContentDigests(this.db);
    this.segments = new SqliteSegmentMemory(this.db);
    this.memory = new SqliteTranslationMemory(this.db);
    this.qaResults = new SqliteQaResults(this.db);
    this.importedWording = new SqliteImportedWording(this.db);
  }

  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new ConfigError(
        `state file ${this.path} has schema version ${current}, newer than this locsync understands (${MIGRATIONS.length}); upgrade locsync`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      const sql = MIGRATIONS[v] as string;
      this.db.transaction(() => {
        this.db.exec(sql);
        if (v === SCRUB_ERRORS_MIGRATION) this.scrubStoredErrors();
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  /** Errors stored before echoed document keys were redacted, scrubbed (../scrub-errors.ts). */
  private scrubStoredErrors(): void {
    const rows = this.db
      .prepare('SELECT id, error, document_key FROM jobs WHERE error IS NOT NULL')
      .all() as StoredError[];
    const update = this.db.prepare('UPDATE jobs SET error = ? WHERE id = ?');
    for (const r of scrubbedErrors(rows)) update.run(r.error, r.id);
  }

  get location(): string {
    return this.path;
  }
  async appliedStyle(key: string): Promise<AppliedStyle | undefined> {
    return this.styleRows.getStyle(key);
  }
  async appliedGlossary(key: string): Promise<AppliedGlossary | undefined> {
    return this.glossaries.getGlossary(key);
  }

  // The synchronous reads of status, report, transfer and the tests: each table's own.
  // ---- style_lists (StyleStateStore) ----
  getStyle(key: string): AppliedStyle | undefined {
    return this.styleRows.getStyle(key);
  }
  setStyle(rec: AppliedStyle): void {
    this.styleRows.setStyle(rec);
  }
  deleteStyle(key: string): void {
    this.styleRows.deleteStyle(key);
  }
  allStyles(): AppliedStyle[] {
    return this.styleRows.allStyles();
  }

  // ---- files and snapshots ----
  getFile(mapping: string, relPath: string): FileRecord | undefined {
    return this.fileRows.getFile(mapping, relPath);
  }
  filesOf(mapping: string): Map<string, ListedFile> {
    return this.fileRows.filesOf(mapping);
  }
  putFile(rec: HashedFile & { seen_at?: string }): void {
    this.fileRows.putFile(rec);
  }
  deleteFile(mapping: string, relPath: string): void {
    this.fileRows.deleteFile(mapping, relPath);
  }
  verifyFiles(mapping: string, sig: number, relPaths: readonly string[]): void {
    this.fileRows.verifyFiles(mapping, sig, relPaths);
  }
  mappingSnapshot(mapping: string): MappingSnapshot | undefined {
    return this.fileRows.mappingSnapshot(mapping);
  }
  setMappingSnapshot(mapping: string, snap: MappingSnapshot, files: number): void {
    this.fileRows.setMappingSnapshot(mapping, snap, files);
  }

  // ---- jobs ----
  getJob(id: number): JobRecord | undefined {
    return this.jobRows.getJob(id);
  }
  doneJobs(): JobRecord[] {
    return this.jobRows.doneJobs();
  }
  doneJobsOfSource(mapping: string, relPath: string): JobRecord[] {
    return this.jobRows.doneJobsOfSource(mapping, relPath);
  }
  openJobs(): JobRecord[] {
    return this.jobRows.openJobs();
  }
  allJobs(): JobRecord[] {
    return this.jobRows.allJobs();
  }
  billedSince(since: string): number {
    return this.jobRows.billedSince(since);
  }
  /** Run `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // ---- runs ----
  startRun(command: string): number {
    return this.runRows.startRun(command);
  }
  finishRun(...run: Parameters<SqliteRunRows['finishRun']>): void {
    this.runRows.finishRun(...run);
  }
  getRun(id: number): RunRecord | undefined {
    return this.runRows.getRun(id);
  }
  recentRuns(limit = 20): RunRecord[] {
    return this.runRows.recentRuns(limit);
  }
  ranRuns(): Generator<RunRecord> {
    return this.runRows.ranRuns();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Open (creating when missing) the state database at `statePath`: folder created, file mode 0600,
 * WAL, migrations applied. Refuses a path on a network filesystem (ConfigError).
 */
export function openState(statePath: string): StateStore {
  return new StateStore(statePath);
}
