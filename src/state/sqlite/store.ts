import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { registerSecret } from '../../log/secrets.js';
import { ConfigError } from '../../util/errors.js';
import { isStateDamage, noteStateOpened, StateDamagedError } from '../integrity.js';
import { networkFsType } from '../netfs.js';
import { latestPerOutput, VERIFY_BATCH, WRITTEN_RECORDS_SQL } from '../transitions.js';
import { SqliteContentDigests } from './digests.js';
import { SqliteTranslationMemory } from './memory.js';
import { SqliteSegmentMemory } from './segments.js';
import { SqliteQaResults } from './qa-results.js';
import { SqliteFileInventory, SqliteRunLog } from './inventory.js';
import { SqliteJobLedger } from './ledger.js';
import { MIGRATIONS, SCRUB_ERRORS_MIGRATION } from './migrations.js';
import { scrubbedErrors, type StoredError } from '../scrub-errors.js';
import { SqliteGlossaryState } from '../glossaries.js';
import { billedOfRunSql, billedSinceSql, chargeStatements, runBillOf, sqliteStatement } from '../billed.js';
import type {
  AppliedGlossary,
  AppliedStyle,
  DoneIndexRow,
  FileRecord,
  HashedFile,
  JobRecord,
  RunBill,
  ListedFile,
  MappingSnapshot,
  NewJob,
  RunRecord,
  GlossaryStateStore,
  RunStopReason,
  StyleStateStore,
  SyncState,
  WrittenRecordRow,
} from '../types.js';

// The pipeline's memory: state.db (SQLite, WAL). Files seen, jobs (with the document_id and the
// secret document_key of every upload), style lists applied, and runs. Created with mode 0600.
// Schema changes are versioned migrations (./migrations.ts, PRAGMA user_version).

const now = () => new Date().toISOString();

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
  /**
   * The job rows, written by this ledger only: the row writes below are private and handed to it
   * alone (the run's ledger, src/sync/run/run-ledger.ts, is the one caller of its transitions).
   */
  readonly jobs: SqliteJobLedger = new SqliteJobLedger(this, {
    createJob: (job) => this.createJob(job),
    updateJob: (id, fields) => this.updateJob(id, fields),
    deleteJob: (id) => this.deleteJob(id),
    charge: (c) => {
      for (const st of chargeStatements(c)) {
        const { sql, params } = sqliteStatement(st);
        this.db.prepare(sql).run(params);
      }
    },
  });
  readonly files: SqliteFileInventory = new SqliteFileInventory(this);
  readonly runs: SqliteRunLog = new SqliteRunLog(this);
  readonly digests: SqliteContentDigests;
  readonly segments: SqliteSegmentMemory;
  readonly memory: SqliteTranslationMemory;
  readonly qaResults: SqliteQaResults;
  readonly db: Database.Database;
  private readonly stmts;
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
    this.stmts = this.prepare();
    this.glossaries = new SqliteGlossaryState(this.db);
    this.digests = new SqliteContentDigests(this.db);
    this.segments = new SqliteSegmentMemory(this.db);
    this.memory = new SqliteTranslationMemory(this.db);
    this.qaResults = new SqliteQaResults(this.db);
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

  private prepare() {
    const db = this.db;
    return {
      getFile: db.prepare<[string, string], FileRecord>(
        'SELECT * FROM files WHERE mapping = ? AND rel_path = ?',
      ),
      filesOf: db
        .prepare<[string], unknown[]>(
          'SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = ?',
        )
        .raw(true),
      // A folder's files: the key range of paths starting with `folder/` (BINARY collation compares
      // bytes, and '0' follows '/'), those in its subfolders dropped by the caller.
      filesUnder: db
        .prepare<[string, string, string], unknown[]>(
          'SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = ? AND rel_path > ? AND rel_path < ?',
        )
        .raw(true),
      filesAtTop: db
        .prepare<[string], unknown[]>(
          "SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = ? AND instr(rel_path, '/') = 0",
        )
        .raw(true),
      filesFirst: db
        .prepare<[string, number], unknown[]>(
          'SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = ? ORDER BY rel_path LIMIT ?',
        )
        .raw(true),
      filesAfter: db
        .prepare<[string, string, number], unknown[]>(
          'SELECT rel_path, size, mtime_ms, verified, ino, ctime_ms FROM files WHERE mapping = ? AND rel_path > ? ORDER BY rel_path LIMIT ?',
        )
        .raw(true),
      shasOf: db
        .prepare<[string], unknown[]>('SELECT rel_path, sha256 FROM files WHERE mapping = ?')
        .raw(true),
      shasOfEach: db
        .prepare<[string, string], unknown[]>(
          'SELECT rel_path, sha256 FROM files WHERE mapping = ? AND rel_path IN (SELECT value FROM json_each(?))',
        )
        .raw(true),
      putFile: db.prepare(
        `INSERT INTO files (mapping, rel_path, size, mtime_ms, sha256, seen_at, ino, ctime_ms)
         VALUES (@mapping, @rel_path, @size, @mtime_ms, @sha256, @seen_at, @ino, @ctime_ms)
         ON CONFLICT (mapping, rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, sha256 = excluded.sha256,
           seen_at = excluded.seen_at, verified = NULL, ino = excluded.ino, ctime_ms = excluded.ctime_ms`,
      ),
      verifyFiles: db.prepare(
        'UPDATE files SET verified = ? WHERE mapping = ? AND rel_path IN (SELECT value FROM json_each(?))',
      ),
      unverifyFile: db.prepare(
        'UPDATE files SET verified = NULL WHERE mapping = ? AND rel_path = ? AND verified IS NOT NULL',
      ),
      unverifyAll: db.prepare('UPDATE files SET verified = NULL WHERE verified IS NOT NULL'),
      getSnapshot: db.prepare<
        [string],
        { digest: string; output_dirs: string; outputs_digest: string; folders: string | null }
      >('SELECT digest, output_dirs, outputs_digest, folders FROM snapshots WHERE mapping = ?'),
      putSnapshot: db.prepare(
        `INSERT INTO snapshots (mapping, digest, output_dirs, outputs_digest, files, taken_at, folders) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (mapping) DO UPDATE SET digest = excluded.digest, output_dirs = excluded.output_dirs,
           outputs_digest = excluded.outputs_digest, files = excluded.files, taken_at = excluded.taken_at,
           folders = excluded.folders`,
      ),
      dropSnapshot: db.prepare('DELETE FROM snapshots WHERE mapping = ?'),
      dropSnapshots: db.prepare('DELETE FROM snapshots'),
      deleteFile: db.prepare('DELETE FROM files WHERE mapping = ? AND rel_path = ?'),
      getJob: db.prepare<[number], JobRecord>('SELECT * FROM jobs WHERE id = ?'),
      deleteJob: db.prepare('DELETE FROM jobs WHERE id = ?'),
      insertJob: db.prepare(
        `INSERT INTO jobs (mapping, rel_path, sha256, target_lang, fingerprint, base_fingerprint, output_path, status,
           attempts, source_characters, created_at, updated_at, run_id, request)
         VALUES (@mapping, @rel_path, @sha256, @target_lang, @fingerprint, @base_fingerprint, @output_path, 'pending',
           0, @source_characters, @now, @now, @run_id, @request)`,
      ),
      doneJobs: db.prepare<[], JobRecord>(`SELECT * FROM jobs WHERE status = 'done' ORDER BY id`),
      doneIndex: db
        .prepare<[], unknown[]>(
          `SELECT id, output_path, sha256, fingerprint, base_fingerprint, mapping, rel_path FROM jobs WHERE status = 'done' ORDER BY id`,
        )
        .raw(true),
      // CROSS JOIN keeps the outputs the outer loop (a lookup each in jobs_output): with `IN`, the
      // planner reads every done job through jobs_status instead, a whole index per call.
      latestDoneOfEach: db.prepare<[string], DoneIndexRow>(
        `SELECT j.id, j.output_path, j.sha256, j.fingerprint, j.base_fingerprint, j.mapping, j.rel_path
         FROM json_each(?) AS o CROSS JOIN jobs AS j ON j.output_path = o.value AND j.status = 'done' ORDER BY j.id`,
      ),
      latestDoneOf: db.prepare<[string], DoneIndexRow>(
        `SELECT id, output_path, sha256, fingerprint, base_fingerprint, mapping, rel_path FROM jobs
         WHERE output_path = ? AND status = 'done' ORDER BY id DESC LIMIT 1`,
      ),
      doneWithContent: db.prepare<[string, string], { id: number; output_path: string }>(
        `SELECT id, output_path FROM jobs WHERE sha256 = ? AND fingerprint = ? AND status = 'done' ORDER BY id`,
      ),
      doneOfSource: db.prepare<[string, string], JobRecord>(
        `SELECT * FROM jobs WHERE status = 'done' AND mapping = ? AND rel_path = ? ORDER BY id`,
      ),
      openJobs: db.prepare<[], JobRecord>(
        `SELECT * FROM jobs WHERE status IN ('pending', 'uploaded', 'failed') ORDER BY id`,
      ),
      allJobs: db.prepare<[], JobRecord>('SELECT * FROM jobs ORDER BY id'),
      jobsOfRun: db.prepare<[number], JobRecord>('SELECT * FROM jobs WHERE run_id = ? ORDER BY id'),
      deleteStyle: db.prepare('DELETE FROM style_lists WHERE key = ?'),
      getStyle: db.prepare<[string], AppliedStyle>('SELECT * FROM style_lists WHERE key = ?'),
      allStyles: db.prepare<[], AppliedStyle>('SELECT * FROM style_lists ORDER BY key'),
      putStyle: db.prepare(
        `INSERT INTO style_lists (key, style_id, name, language, version, hash, applied_at)
         VALUES (@key, @style_id, @name, @language, @version, @hash, @applied_at)
         ON CONFLICT (key) DO UPDATE SET style_id = excluded.style_id, name = excluded.name, language = excluded.language,
           version = excluded.version, hash = excluded.hash, applied_at = excluded.applied_at`,
      ),
      startRun: db.prepare(`INSERT INTO runs (started_at, command, status, pid) VALUES (?, ?, 'running', ?)`),
      finishRun: db.prepare(
        'UPDATE runs SET finished_at = ?, status = ?, counts = ?, billed_characters = ?, reason = ? WHERE id = ?',
      ),
      getRun: db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?'),
      runs: db.prepare<[number], RunRow>('SELECT * FROM runs ORDER BY id DESC LIMIT ?'),
      ranRuns: db.prepare<[], RunRow>(`SELECT * FROM runs WHERE status <> 'skipped' ORDER BY id DESC`),
      runningRuns: db.prepare<[], RunRow>(`SELECT * FROM runs WHERE status = 'running'`),
      markRun: db.prepare('UPDATE runs SET status = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?'),
    };
  }

  get location(): string {
    return this.path;
  }
  async appliedStyle(key: string): Promise<AppliedStyle | undefined> {
    return this.getStyle(key);
  }
  async appliedGlossary(key: string): Promise<AppliedGlossary | undefined> {
    return this.glossaries.getGlossary(key);
  }

  // ---- StyleStateStore ----
  getStyle(key: string): AppliedStyle | undefined {
    return this.stmts.getStyle.get(key);
  }
  setStyle(rec: AppliedStyle): void {
    this.stmts.putStyle.run(rec);
  }
  deleteStyle(key: string): void {
    this.stmts.deleteStyle.run(key);
  }
  allStyles(): AppliedStyle[] {
    return this.stmts.allStyles.all();
  }

  // ---- files ----
  getFile(mapping: string, relPath: string): FileRecord | undefined {
    return this.stmts.getFile.get(mapping, relPath);
  }
  /**
   * Every file recorded for a mapping, by relative path: one query, the raw rows kept as they are (a
   * scan reads 100,000s of them; no object per row, no sha256 string per row).
   */
  filesOf(mapping: string): Map<string, ListedFile> {
    const out = new Map<string, ListedFile>();
    for (const r of this.stmts.filesOf.all(mapping) as unknown as ListedFile[]) out.set(r[0], r);
    return out;
  }
  /** The files recorded directly in these folders of a mapping (see FileInventory.listedIn). */
  filesIn(mapping: string, folders: readonly string[]): Map<string, ListedFile> {
    const out = new Map<string, ListedFile>();
    for (const folder of new Set(folders)) {
      if (folder === '') {
        for (const r of this.stmts.filesAtTop.all(mapping) as unknown as ListedFile[]) out.set(r[0], r);
        continue;
      }
      const prefix = folder + '/';
      for (const r of this.stmts.filesUnder.all(mapping, prefix, folder + '0') as unknown as ListedFile[])
        if (r[0].indexOf('/', prefix.length) === -1) out.set(r[0], r);
    }
    return out;
  }
  /** The recorded sha256 of every file of a mapping, by relative path (when many are needed). */
  shasOf(mapping: string): Map<string, string> {
    const out = new Map<string, string>();
    for (const r of this.stmts.shasOf.iterate(mapping) as IterableIterator<[string, string]>)
      out.set(r[0], r[1]);
    return out;
  }
  /** The recorded files of a mapping after `after` in path order, at most `limit` (a page of them). */
  filesAfter(mapping: string, after: string | undefined, limit: number): ListedFile[] {
    return (after === undefined
      ? this.stmts.filesFirst.all(mapping, limit)
      : this.stmts.filesAfter.all(mapping, after, limit)) as unknown as ListedFile[];
  }
  /** The recorded sha256 of these files of a mapping (those recorded). */
  shasOfEach(mapping: string, relPaths: readonly string[]): Map<string, string> {
    return new Map(this.stmts.shasOfEach.all(mapping, JSON.stringify(relPaths)) as Array<[string, string]>);
  }
  /** Record that these files' outputs were all found up to date under `sig` (see FileRecord.verified). */
  verifyFiles(mapping: string, sig: number, relPaths: readonly string[]): void {
    if (relPaths.length === 0) return;
    this.db.transaction(() => {
      for (let at = 0; at < relPaths.length; at += VERIFY_BATCH)
        this.stmts.verifyFiles.run(sig, mapping, JSON.stringify(relPaths.slice(at, at + VERIFY_BATCH)));
    })();
  }
  putFile(rec: HashedFile & { seen_at?: string }): void {
    this.transaction(() => {
      this.stmts.putFile.run({ ino: null, ctime_ms: null, ...rec, seen_at: rec.seen_at ?? now() });
      this.stmts.dropSnapshot.run(rec.mapping);
    });
  }
  deleteFile(mapping: string, relPath: string): void {
    this.transaction(() => {
      this.stmts.deleteFile.run(mapping, relPath);
      this.stmts.dropSnapshot.run(mapping);
    });
  }

  /**
   * Recorded when a scan found every output of every file of a mapping up to date: the digest of its
   * source listing (every file's path, size, mtime and settings signature) and of its output folders'
   * listings. A scan whose source listing has the same digest knows that without reading a file
   * record or a job: only the outputs must still exist, and when the output folders list the same
   * names as then, they do. Dropped when a file record changes and whenever a job becomes done (see
   * updateJob).
   */
  mappingSnapshot(mapping: string): MappingSnapshot | undefined {
    const r = this.stmts.getSnapshot.get(mapping);
    return (
      r && {
        digest: r.digest,
        outputDirs: JSON.parse(r.output_dirs) as string[],
        outputsDigest: r.outputs_digest,
        ...(r.folders !== null ? { folders: new Map(JSON.parse(r.folders) as Array<[string, string]>) } : {}),
      }
    );
  }
  setMappingSnapshot(mapping: string, snap: MappingSnapshot, files: number): void {
    this.stmts.putSnapshot.run(
      mapping,
      snap.digest,
      JSON.stringify(snap.outputDirs),
      snap.outputsDigest,
      files,
      now(),
      snap.folders ? JSON.stringify([...snap.folders]) : null,
    );
  }

  // ---- jobs ----
  getJob(id: number): JobRecord | undefined {
    return this.revealKey(this.stmts.getJob.get(id));
  }
  private createJob(job: NewJob): JobRecord {
    const info = this.stmts.insertJob.run({ source_characters: null, request: null, ...job, now: now() });
    return this.getJob(Number(info.lastInsertRowid)) as JobRecord;
  }
  /**
   * Update some columns of a job (updated_at is set too). A job becoming done changes what its output
   * holds, so nothing may vouch for that output any more: the mapping snapshots are dropped, its own
   * file's verified mark is cleared, and every mark when the output's previous translation came from
   * another source file (a rare hand-over between files: the next scan checks every file again).
   */
  private updateJob(id: number, fields: Partial<Omit<JobRecord, 'id' | 'created_at'>>): void {
    const cols = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined);
    const sets = [...cols.map((c) => `${c} = @${c}`), 'updated_at = @updated_at'].join(', ');
    const update = () =>
      this.db.prepare(`UPDATE jobs SET ${sets} WHERE id = @id`).run({ ...fields, updated_at: now(), id });
    if (fields.status !== 'done') {
      update();
      return;
    }
    this.db.transaction(() => {
      const job = this.stmts.getJob.get(id);
      const prev = job && this.stmts.latestDoneOf.get(job.output_path);
      update();
      // Which mapping's snapshot vouches for this output is not known here: none stands.
      this.stmts.dropSnapshots.run();
      if (!job) return;
      this.stmts.unverifyFile.run(job.mapping, job.rel_path);
      if (prev && prev.id !== id && (prev.mapping !== job.mapping || prev.rel_path !== job.rel_path))
        this.stmts.unverifyAll.run();
    })();
  }
  /** Remove a job row (one that never led to an upload; see JobLedger.superseded). */
  private deleteJob(id: number): void {
    this.stmts.deleteJob.run(id);
  }
  /** Jobs that are done (the index of outputs made). */
  doneJobs(): JobRecord[] {
    return this.stmts.doneJobs.all();
  }
  /**
   * Done jobs, few columns, oldest first, streamed row by row (raw rows: the no-op scan reads 100,000s of
   * them, so no array of every row is built). Fingerprints repeat across rows (one per mapping, target
   * and settings): each distinct value is kept once instead of once per row.
   */
  *iterateDoneIndex(): IterableIterator<DoneIndexRow> {
    const interned = new Map<string, string>();
    const intern = (v: string) => {
      const seen = interned.get(v);
      if (seen !== undefined) return seen;
      if (interned.size < 10_000) interned.set(v, v);
      return v;
    };
    for (const r of this.stmts.doneIndex.iterate() as IterableIterator<
      [number, string, string, string, string, string, string]
    >) {
      yield {
        id: r[0],
        output_path: r[1],
        sha256: r[2],
        fingerprint: intern(r[3]),
        base_fingerprint: intern(r[4]),
        mapping: intern(r[5]),
        rel_path: r[6],
      };
    }
  }
  /** The latest done job of one output path (what the output holds), by index. */
  latestDoneOf(outputPath: string): DoneIndexRow | undefined {
    return this.stmts.latestDoneOf.get(outputPath);
  }
  /** The latest done job of each of these outputs (those with one). */
  latestDoneOfEach(outputPaths: readonly string[]): DoneIndexRow[] {
    return latestPerOutput(this.stmts.latestDoneOfEach.all(JSON.stringify(outputPaths)));
  }
  /** Done jobs of one content and settings fingerprint, oldest first (reuse donors), by index. */
  doneWithContent(sha256: string, fingerprint: string): Array<{ id: number; output_path: string }> {
    return this.stmts.doneWithContent.all(sha256, fingerprint);
  }
  /** Done jobs of one source file (for on_source_delete: delete). */
  doneJobsOfSource(mapping: string, relPath: string): JobRecord[] {
    return this.stmts.doneOfSource.all(mapping, relPath);
  }
  writtenRecords(): WrittenRecordRow[] {
    return this.db.prepare<[], WrittenRecordRow>(WRITTEN_RECORDS_SQL).all();
  }

  doneDocuments(documentIds: readonly string[]): string[] {
    return this.db
      .prepare<[string], { document_id: string }>(
        `SELECT DISTINCT document_id FROM jobs WHERE status = 'done' AND document_id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(documentIds))
      .map((r) => r.document_id);
  }
  anyDoneJob(): boolean {
    return this.db.prepare(`SELECT 1 FROM jobs WHERE status = 'done' LIMIT 1`).get() !== undefined;
  }
  billedSince(since: string): number {
    const row = this.db
      .prepare<[{ since: string }], { billed: number | null }>(billedSinceSql('@since'))
      .get({ since });
    return row?.billed ?? 0;
  }
  billedOfRun(runId: number): RunBill {
    return runBillOf(
      this.db
        .prepare<[{ run: number }], Record<string, number | null>>(billedOfRunSql('@run'))
        .get({ run: runId }),
    );
  }
  jobsToken(): string {
    const r = this.db
      .prepare('SELECT COUNT(*) AS n, MAX(id) AS id, MAX(updated_at) AS at FROM jobs')
      .get() as { n: number; id: number | null; at: string | null };
    return `${r.n}|${r.id ?? 0}|${r.at ?? ''}`;
  }
  /** Jobs not done: pending, uploaded (id+key kept: resume), failed (retried up to max_attempts). */
  openJobs(): JobRecord[] {
    return this.stmts.openJobs.all().map((j) => this.revealKey(j) as JobRecord);
  }
  allJobs(): JobRecord[] {
    return this.stmts.allJobs.all();
  }
  jobsOfRun(runId: number): JobRecord[] {
    return this.stmts.jobsOfRun.all(runId);
  }
  /** Run `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  private revealKey(job: JobRecord | undefined): JobRecord | undefined {
    if (job?.document_key) registerSecret(job.document_key);
    return job;
  }

  // ---- runs ----
  /** Record a run; runs left 'running' by a process that died are marked 'crashed'. */
  startRun(command: string): number {
    for (const r of this.stmts.runningRuns.all()) {
      if (r.pid !== process.pid) this.stmts.markRun.run('crashed', null, r.id);
    }
    return Number(this.stmts.startRun.run(now(), command, process.pid).lastInsertRowid);
  }
  finishRun(
    id: number,
    status: RunRecord['status'],
    counts: Record<string, number>,
    billed: number,
    reason?: RunStopReason,
  ): void {
    this.stmts.finishRun.run(now(), status, JSON.stringify(counts), billed, reason ?? null, id);
  }
  getRun(id: number): RunRecord | undefined {
    const r = this.stmts.getRun.get(id);
    return r ? parseRun(r) : undefined;
  }
  /** Most recent runs first. */
  recentRuns(limit = 20): RunRecord[] {
    return this.stmts.runs.all(limit).map(parseRun);
  }
  /** The runs that ran (a run skipped for the lock did not), most recent first, read as asked for. */
  *ranRuns(): Generator<RunRecord> {
    for (const r of this.stmts.ranRuns.iterate()) yield parseRun(r);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

interface RunRow extends Omit<RunRecord, 'counts'> {
  counts: string | null;
}
function parseRun(r: RunRow): RunRecord {
  return { ...r, counts: r.counts ? (JSON.parse(r.counts) as Record<string, number>) : null };
}

/**
 * Open (creating when missing) the state database at `statePath`: folder created, file mode 0600,
 * WAL, migrations applied. Refuses a path on a network filesystem (ConfigError).
 */
export function openState(statePath: string): StateStore {
  return new StateStore(statePath);
}
