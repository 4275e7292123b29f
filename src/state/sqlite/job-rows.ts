import type Database from 'better-sqlite3';
import { registerSecret } from '../../log/secrets.js';
import {
  billedOfRunSql,
  billedSinceSql,
  chargeStatements,
  runBillOf,
  sqliteStatement,
  type Charge,
} from '../billed.js';
import { latestPerOutput, WRITTEN_RECORDS_SQL } from '../transitions.js';
import { sincePlanStatement } from '../since-plan.js';
import { deliveredJobStatement } from '../delivered-bulk.js';
import type {
  DeliveredOutput,
  DoneIndexRow,
  JobRecord,
  JobSincePlan,
  NewJob,
  RunBill,
  WrittenRecordRow,
} from '../job-types.js';
import type { SqliteFileRows } from './file-rows.js';
import type { JobRowWrites, JobRows } from './ledger.js';

// state.db's jobs table: one row per job, with the document_id and the secret document_key of every
// upload. The reads are public; the writes are handed to the job ledger alone (jobTable), the one
// writer of job rows (src/sync/run/run-ledger.ts is the one caller of its transitions).

const now = () => new Date().toISOString();

type JobFieldUpdate = Partial<Omit<JobRecord, 'id' | 'created_at'>>;

function prepare(db: Database.Database) {
  return {
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
  };
}

type JobStatements = ReturnType<typeof prepare>;

function revealKey(job: JobRecord | undefined): JobRecord | undefined {
  if (job?.document_key) registerSecret(job.document_key);
  return job;
}

/** The reads of the jobs table. */
export class SqliteJobRows implements JobRows {
  constructor(
    private readonly db: Database.Database,
    private readonly stmts: JobStatements,
  ) {}

  getJob(id: number): JobRecord | undefined {
    return revealKey(this.stmts.getJob.get(id));
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
  sincePlan(job: JobRecord, runId: number, since: string): JobSincePlan | undefined {
    // A row is stamped as it is written, synchronously: no margin.
    const { sql, params } = sqliteStatement(sincePlanStatement(job, runId, since, 0));
    // Asked before every billed call: prepared once (its SQL is the same for every job).
    this.sincePlanStmt ??= this.db.prepare<[typeof params], JobSincePlan>(sql);
    return this.sincePlanStmt.get(params);
  }
  private sincePlanStmt:
    Database.Statement<[Record<string, string | number | null>], JobSincePlan> | undefined;
  /** Jobs not done: pending, uploaded (id+key kept: resume), failed (retried up to max_attempts). */
  openJobs(): JobRecord[] {
    return this.stmts.openJobs.all().map((j) => revealKey(j) as JobRecord);
  }
  allJobs(): JobRecord[] {
    return this.stmts.allJobs.all();
  }
  jobsOfRun(runId: number): JobRecord[] {
    return this.stmts.jobsOfRun.all(runId);
  }
  /** Run `fn` in one transaction (a savepoint inside one already open). */
  transaction<T>(fn: () => T): T {
    // One transaction function for all (better-sqlite3 builds a new one per db.transaction()).
    this.inTransaction ??= this.db.transaction((f: () => unknown) => f());
    return this.inTransaction(fn) as T;
  }
  private inTransaction: ((fn: () => unknown) => unknown) | undefined;
}

/** The writes of the jobs table. */
class SqliteJobWrites implements JobRowWrites {
  /**
   * Statements of the writes whose SQL depends on what is written (the columns an update sets, a
   * charge's rows), prepared once each: preparing one per write was a tenth of a first sync's time.
   */
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly stmts: JobStatements,
    private readonly files: SqliteFileRows,
  ) {}

  private statement(sql: string): Database.Statement {
    let st = this.prepared.get(sql);
    if (!st) this.prepared.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  createJob(job: NewJob): JobRecord {
    const info = this.stmts.insertJob.run({ source_characters: null, request: null, ...job, now: now() });
    return revealKey(this.stmts.getJob.get(Number(info.lastInsertRowid))) as JobRecord;
  }
  /**
   * Update some columns of a job (updated_at is set too). A job becoming done changes what its output
   * holds, so nothing may vouch for that output any more (SqliteFileRows.outputRewritten), and every
   * mark when the output's previous translation came from another source file (a rare hand-over
   * between files).
   */
  updateJob(id: number, fields: JobFieldUpdate): void {
    const cols = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined);
    const sets = [...cols.map((c) => `${c} = @${c}`), 'updated_at = @updated_at'].join(', ');
    const update = () =>
      this.statement(`UPDATE jobs SET ${sets} WHERE id = @id`).run({ ...fields, updated_at: now(), id });
    if (fields.status !== 'done') {
      update();
      return;
    }
    this.db.transaction(() => {
      const job = this.stmts.getJob.get(id);
      const prev = job && this.stmts.latestDoneOf.get(job.output_path);
      update();
      const handedOver =
        !!job && !!prev && prev.id !== id && (prev.mapping !== job.mapping || prev.rel_path !== job.rel_path);
      this.files.outputRewritten(job, handedOver);
    })();
  }
  /** Remove a job row (one that never led to an upload; see JobLedger.superseded). */
  deleteJob(id: number): void {
    this.stmts.deleteJob.run(id);
  }
  /**
   * Outputs delivered outside a run (JobLedger.deliveredInBulk): their files recorded, a done job
   * each; nothing vouches for any output afterwards (the next scan checks and marks them again).
   */
  deliveredInBulk(outputs: readonly DeliveredOutput[]): void {
    if (outputs.length === 0) return;
    const at = now();
    this.db.transaction(() => {
      this.files.putFiles(outputs.map((d) => d.source));
      for (const d of outputs) {
        const { sql, params } = sqliteStatement(deliveredJobStatement(d, at));
        this.statement(sql).run(params);
      }
      this.files.outputRewritten(undefined, false);
    })();
  }
  /** Record what the service billed or may have billed (../billed.ts). */
  charge(c: Charge): void {
    for (const st of chargeStatements(c)) {
      const { sql, params } = sqliteStatement(st);
      this.statement(sql).run(params);
    }
  }
}

/** The jobs table: its reads, and its writes for the job ledger alone. */
export function jobTable(
  db: Database.Database,
  files: SqliteFileRows,
): { rows: SqliteJobRows; writes: JobRowWrites } {
  const stmts = prepare(db);
  return { rows: new SqliteJobRows(db, stmts), writes: new SqliteJobWrites(db, stmts, files) };
}
