import type pg from 'pg';
import { registerSecret } from '../../log/secrets.js';
import { latestPerOutput, transitions, WRITTEN_RECORDS_SQL, type JobFields } from '../transitions.js';
import type {
  DeliveredOutput,
  DoneIndexRow,
  JobFailure,
  JobLedger,
  JobRecord,
  RunBill,
  NewJob,
  SpooledDownload,
  WrittenOutput,
  WrittenRecordRow,
} from '../job-types.js';
import { attachJob, claimUnit, holdsUnit, releaseUnit, unitKey } from './claims.js';
import { noticeDeadWorkers } from './runs.js';
import { DoneElsewhereError, HeldByOtherWorkerError, RecordedJobError } from '../held.js';
import { DEFAULT_OUTAGE_MS, whileUnreachable } from './patient.js';
import { inTransaction } from './tx.js';
import { recordDeliveredInBulk } from './delivered-bulk.js';
import { pgBilledOfRun, pgBilledSince, pgHorizon, pgSincePlan } from './ledger-reads.js';
import { chargeOf, chargeStatements, pgStatement, type Charge } from '../billed.js';

// The job ledger on PostgreSQL, shared by every worker of the pipeline: the only writer of job rows.
// A worker (opened with a worker id) holds the unit of every job it works on, from when it starts
// it (it has a place for it) until the job ends, and no longer: `created` claims the unit first and
// refuses when another live worker holds it; `open` lists the jobs whose unit it could claim (free,
// its own, or left by a dead worker) without claiming them, and `take` claims one as the worker
// starts it (a takeover when a dead worker held it). A worker thus holds no more units than it has
// work under way, and a worker that dies leaves only those to its lease. Every write of a worker is
// fenced: the row changes only while the unit is still ours (and its lease is renewed with it), so a
// worker that stalled past its lease never uploads, records an answer for, or finishes what another
// worker has taken over (HeldByOtherWorkerError). Jobs that end (done, failed, superseded) free the unit.

export { HeldByOtherWorkerError };

export interface LedgerWorker {
  id: string;
  leaseSeconds: number;
}

const COLUMNS = new Set([
  'mapping', 'rel_path', 'sha256', 'target_lang', 'fingerprint', 'base_fingerprint', 'output_path', 'status',
  'document_id', 'document_key', 'attempts', 'billed_characters', 'source_characters', 'error', 'error_kind',
  'updated_at', 'finished_at', 'upload_started_at', 'download_started_ms', 'run_id', 'reused_from',
  'lost_downloads', 'request', 'unconfirmed_uploads', 'output_sha256', 'output_size', 'output_mtime_ms',
  'spool_path', 'spool_sha256', 'spool_size', 'spool_holder',
]); // prettier-ignore

const DONE_COLUMNS = 'id, output_path, sha256, fingerprint, base_fingerprint, mapping, rel_path';
/** Rows of the done index read per round trip (keyset pages, so no cursor stays open). */
const PAGE = 20_000;

export class PgJobLedger implements JobLedger {
  constructor(
    private readonly pool: pg.Pool,
    private readonly worker: LedgerWorker | undefined,
    /** How long a transaction is repeated while the server cannot be reached (ms). */
    private readonly outageMs = DEFAULT_OUTAGE_MS,
  ) {}

  async writtenRecords(): Promise<WrittenRecordRow[]> {
    return (await this.pool.query<WrittenRecordRow>(WRITTEN_RECORDS_SQL)).rows;
  }
  async anyDone(): Promise<boolean> {
    const r = await this.pool.query(`SELECT 1 FROM jobs WHERE status = 'done' LIMIT 1`);
    return r.rows.length > 0;
  }

  billedSince = (since: string): Promise<number> => pgBilledSince(this.pool, since);
  billedOfRun = (runId: number): Promise<RunBill> => pgBilledOfRun(this.pool, runId);

  async changeToken(): Promise<string> {
    const r = await this.pool.query<{ n: number; id: number | null; at: string | null }>(
      'SELECT count(*)::int8 AS n, max(id) AS id, max(updated_at) AS at FROM jobs',
    );
    const row = r.rows[0];
    return `${row?.n ?? 0}|${row?.id ?? 0}|${row?.at ?? ''}`;
  }

  async doneDocuments(documentIds: readonly string[]): Promise<Set<string>> {
    if (!documentIds.length) return new Set();
    const r = await this.pool.query<{ document_id: string }>(
      `SELECT DISTINCT document_id FROM jobs WHERE status = 'done' AND document_id = ANY($1)`,
      [documentIds],
    );
    return new Set(r.rows.map((x) => x.document_id));
  }

  horizon = (): Promise<string> => pgHorizon(this.pool);
  sincePlan = (job: JobRecord, runId: number, since: string) => pgSincePlan(this.pool, job, runId, since);

  private reveal<T extends JobRecord | undefined>(job: T): T {
    if (job?.document_key) registerSecret(job.document_key);
    return job;
  }

  async get(id: number): Promise<JobRecord | undefined> {
    const r = await this.pool.query<JobRecord>('SELECT * FROM jobs WHERE id = $1', [id]);
    return this.reveal(r.rows[0]);
  }

  /**
   * Jobs not done. A worker gets those it holds or could claim (free units, and those of workers
   * whose lease ran out), claimed only when it starts one (take); a reader without worker id gets
   * them all.
   */
  async open(): Promise<JobRecord[]> {
    const r = this.worker
      ? await this.pool.query<JobRecord>(
          `SELECT j.* FROM jobs j
           LEFT JOIN work_claims c ON c.unit = j.sha256 || ':' || j.target_lang || ':' || j.fingerprint
           WHERE j.status IN ('pending', 'uploaded', 'failed')
             AND (c.unit IS NULL OR c.worker_id = $1 OR c.lease_until < clock_timestamp())
           ORDER BY j.id`,
          [this.worker.id],
        )
      : await this.pool.query<JobRecord>(
          `SELECT * FROM jobs WHERE status IN ('pending', 'uploaded', 'failed') ORDER BY id`,
        );
    return r.rows.map((j) => this.reveal(j));
  }

  /**
   * Claim the unit of an open job as this worker starts it: the job as it stands now, or why not
   * (another live worker holds its unit; it was finished or dropped since it was listed).
   */
  async take(job: JobRecord): Promise<{ job: JobRecord } | { holder: string } | { gone: true }> {
    if (!this.worker) return { job };
    const unit = unitKey(job);
    const claim = await claimUnit(this.pool, this.worker.id, unit, this.worker.leaseSeconds);
    if (!claim.claimed) return { holder: claim.holder };
    if (claim.takenOverFrom) await noticeDeadWorkers(this.pool, this.worker.id);
    // Read again now that the unit is ours: its holder may have finished it (and let it go)
    // between the listing and the claim.
    const now = await this.get(job.id);
    if (!now || now.status === 'done') {
      await releaseUnit(this.pool, this.worker.id, unit);
      return { gone: true };
    }
    // The unit's job is the newest open row of it: point the claim at it for a later takeover.
    if (claim.jobId !== job.id) await attachJob(this.pool, this.worker.id, unit, job.id);
    return { job: now };
  }

  async latestDoneOf(outputPath: string): Promise<DoneIndexRow | undefined> {
    const r = await this.pool.query<DoneIndexRow>(
      `SELECT ${DONE_COLUMNS} FROM jobs WHERE output_path = $1 AND status = 'done' ORDER BY id DESC LIMIT 1`,
      [outputPath],
    );
    return r.rows[0];
  }

  async latestDoneOfEach(outputPaths: readonly string[]): Promise<DoneIndexRow[]> {
    const r = await this.pool.query<DoneIndexRow>(
      `SELECT ${DONE_COLUMNS} FROM jobs WHERE output_path = ANY($1::text[]) AND status = 'done' ORDER BY id`,
      [outputPaths],
    );
    return latestPerOutput(r.rows);
  }

  async *doneIndex(): AsyncIterable<DoneIndexRow> {
    let after = 0;
    for (;;) {
      const r = await this.pool.query<DoneIndexRow>(
        `SELECT ${DONE_COLUMNS} FROM jobs WHERE status = 'done' AND id > $1 ORDER BY id LIMIT ${PAGE}`,
        [after],
      );
      yield* r.rows;
      if (r.rows.length < PAGE) return;
      after = (r.rows.at(-1) as DoneIndexRow).id;
    }
  }

  async doneWithContent(
    sha256: string,
    fingerprint: string,
  ): Promise<Array<{ id: number; output_path: string }>> {
    const r = await this.pool.query<{ id: number; output_path: string }>(
      `SELECT id, output_path FROM jobs WHERE sha256 = $1 AND fingerprint = $2 AND status = 'done' ORDER BY id`,
      [sha256, fingerprint],
    );
    return r.rows;
  }

  async doneOfSource(mapping: string, relPath: string): Promise<JobRecord[]> {
    const r = await this.pool.query<JobRecord>(
      `SELECT * FROM jobs WHERE status = 'done' AND mapping = $1 AND rel_path = $2 ORDER BY id`,
      [mapping, relPath],
    );
    return r.rows;
  }

  async created(job: NewJob): Promise<JobRecord> {
    const unit = unitKey(job);
    if (this.worker) {
      const claim = await claimUnit(this.pool, this.worker.id, unit, this.worker.leaseSeconds);
      if (!claim.claimed) throw new HeldByOtherWorkerError(unit, claim.holder);
      if (claim.jobId !== null) {
        const recorded = await this.get(claim.jobId);
        if (recorded && recorded.status !== 'done') {
          if (claim.takenOverFrom) await noticeDeadWorkers(this.pool, this.worker.id);
          throw new RecordedJobError(recorded);
        }
      }
      // Checked once the unit is ours: a worker that finished it let it go in the same transaction
      // that recorded it done, so what it did is visible now, however old this worker's plan is.
      const done = await this.latestDoneOf(job.output_path);
      if (
        done &&
        done.id !== job.seen_done &&
        done.sha256 === job.sha256 &&
        done.fingerprint === job.fingerprint
      ) {
        await releaseUnit(this.pool, this.worker.id, unit);
        throw new DoneElsewhereError(done);
      }
    }
    const r = await this.pool.query<JobRecord>(
      `INSERT INTO jobs (mapping, rel_path, sha256, target_lang, fingerprint, base_fingerprint, output_path, status,
         attempts, source_characters, created_at, updated_at, run_id, request)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, now(), now(), $9, $10) RETURNING *`,
      [
        job.mapping,
        job.rel_path,
        job.sha256,
        job.target_lang,
        job.fingerprint,
        job.base_fingerprint,
        job.output_path,
        job.source_characters ?? null,
        job.run_id,
        job.request ?? null,
      ],
    );
    const created = r.rows[0] as JobRecord;
    if (this.worker) await attachJob(this.pool, this.worker.id, unit, created.id);
    return created;
  }

  takenUp(job: JobRecord, runId: number, request: string): Promise<JobRecord> {
    return this.write(job, transitions.takenUp(job, runId, request));
  }
  unconfirmedUpload(job: JobRecord): Promise<JobRecord> {
    return this.write(job, transitions.unconfirmedUpload(job), { charge: chargeOf.unconfirmed(job) });
  }
  async reused(job: NewJob, fromJobId: number, written?: WrittenOutput): Promise<JobRecord> {
    const created = await this.created(job);
    return this.write(created, transitions.reused(fromJobId, written), { release: true });
  }
  deliveredInBulk(outputs: readonly DeliveredOutput[]): Promise<number> {
    return recordDeliveredInBulk(this.pool, outputs);
  }
  async adopted(job: NewJob): Promise<JobRecord> {
    const created = await this.created(job);
    return this.write(created, transitions.adopted(), { release: true });
  }
  uploadStarted(job: JobRecord, runId: number, reupload?: 'lost-download'): Promise<JobRecord> {
    return this.write(job, transitions.uploadStarted(job, runId, reupload));
  }
  uploaded(job: JobRecord, documentId: string, documentKey: string): Promise<JobRecord> {
    registerSecret(documentKey);
    return this.write(job, transitions.uploaded(documentId, documentKey));
  }
  downloading(job: JobRecord, billedCharacters: number, startedMs: number): Promise<JobRecord> {
    return this.write(job, transitions.downloading(billedCharacters, startedMs), {
      charge: chargeOf.billed(job, billedCharacters),
    });
  }
  spooled(job: JobRecord, spool: SpooledDownload): Promise<JobRecord> {
    return this.write(job, transitions.spooled(spool));
  }
  done(job: JobRecord, billedCharacters: number, written?: WrittenOutput): Promise<JobRecord> {
    return this.write(job, transitions.done(billedCharacters, written), {
      release: true,
      charge: chargeOf.billed(job, billedCharacters),
    });
  }
  lostDownload(job: JobRecord): Promise<JobRecord> {
    return this.write(job, transitions.lostDownload(job));
  }
  failed(job: JobRecord, failure: JobFailure): Promise<JobRecord> {
    return this.write(job, transitions.failed(job, failure), {
      release: !failure.keepDocument && !failure.keepClaim,
      charge: chargeOf.failed(job, failure),
    });
  }
  async superseded(job: JobRecord, error: string): Promise<JobRecord | undefined> {
    const fields = transitions.superseded(job, error);
    if (fields) return this.write(job, fields, { release: true });
    const removed = await whileUnreachable(
      () =>
        inTransaction(this.pool, async (c) => {
          if (!(await this.stillOurs(c, job))) return false;
          await c.query('DELETE FROM jobs WHERE id = $1', [job.id]);
          if (this.worker) await releaseUnit(c, this.worker.id, unitKey(job));
          return true;
        }),
      this.outageMs,
    );
    if (!removed) await this.refused(job);
    return undefined;
  }

  /**
   * Whether this worker still holds the job's unit (always, for a reader without worker id), its
   * lease renewed: the claim row stays locked to the end of the transaction, so a takeover waits for
   * the write and then reads it, or came first and the write is refused.
   */
  private async stillOurs(c: pg.PoolClient, job: JobRecord): Promise<boolean> {
    if (!this.worker) return true;
    return holdsUnit(c, this.worker.id, unitKey(job), this.worker.leaseSeconds);
  }

  /** The write was refused: the unit is another worker's now (or nobody's: the lease ran out). */
  private async refused(job: JobRecord): Promise<never> {
    const unit = unitKey(job);
    const holder = await this.pool.query<{ worker_id: string }>(
      'SELECT worker_id FROM work_claims WHERE unit = $1',
      [unit],
    );
    throw new HeldByOtherWorkerError(unit, holder.rows[0]?.worker_id ?? '(none: the lease ran out)');
  }

  /**
   * Update a job's row (and updated_at) and answer it fresh, only while this worker holds the job's
   * unit (HeldByOtherWorkerError otherwise). A job becoming done changes what its output
   * holds: the mapping snapshots go, its file's verified mark too, and every mark when the output's
   * previous translation came from another source file (as the SQLite state does).
   */
  private async write(
    job: JobRecord,
    fields: JobFields,
    opts: { release?: boolean; charge?: Charge | undefined } = {},
  ): Promise<JobRecord> {
    const cols = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined);
    for (const c of cols) if (!COLUMNS.has(c)) throw new Error(`not a column of jobs: ${c}`);
    const values = cols.map((c) => (fields as Record<string, unknown>)[c]);
    const sets = [...cols.map((c, i) => `${c} = $${i + 2}`), 'updated_at = now()'].join(', ');
    const unit = unitKey(job);
    // Repeated whole when the server went away mid-transaction (it was rolled back).
    const updated = await whileUnreachable(
      () =>
        inTransaction(this.pool, async (c) => {
          if (!(await this.stillOurs(c, job))) return null;
          const prev =
            fields.status === 'done'
              ? (
                  await c.query<DoneIndexRow>(
                    `SELECT ${DONE_COLUMNS} FROM jobs WHERE output_path = $1 AND status = 'done' ORDER BY id DESC LIMIT 1`,
                    [job.output_path],
                  )
                ).rows[0]
              : undefined;
          const r = await c.query<JobRecord>(`UPDATE jobs SET ${sets} WHERE id = $1 RETURNING *`, [
            job.id,
            ...values,
          ]);
          const row = r.rows[0];
          if (!row) return undefined;
          if (fields.status === 'done') {
            await c.query('DELETE FROM snapshots');
            await c.query(
              'UPDATE files SET verified = NULL WHERE mapping = $1 AND rel_path = $2 AND verified IS NOT NULL',
              [row.mapping, row.rel_path],
            );
            if (
              prev &&
              prev.id !== row.id &&
              (prev.mapping !== row.mapping || prev.rel_path !== row.rel_path)
            )
              await c.query('UPDATE files SET verified = NULL WHERE verified IS NOT NULL');
          }
          // What the service billed is recorded with the transition that learnt it (../billed.ts).
          if (opts.charge)
            for (const st of chargeStatements(opts.charge)) {
              const { sql, values } = pgStatement(st);
              await c.query(sql, values);
            }
          if (opts.release && this.worker)
            await c.query('DELETE FROM work_claims WHERE unit = $1 AND worker_id = $2', [
              unit,
              this.worker.id,
            ]);
          return row;
        }),
      this.outageMs,
    );
    if (updated) return this.reveal(updated);
    if (updated === null) return this.refused(job);
    throw new Error(`job ${job.id} is not in the state any more`);
  }
}
