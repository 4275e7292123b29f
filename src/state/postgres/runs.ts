import os from 'node:os';
import type pg from 'pg';
import type { RunLog, RunOutcome, RunRecord } from '../run-types.js';
import type {
  AppliedGlossary,
  AppliedStyle,
  GlossaryStateStore,
  StyleStateStore,
} from '../terminology-types.js';
import { CachedRows } from './cached-rows.js';
import { dropDeadWorkersClaims } from './segment-claims.js';
import { WORKER_ALIVE } from './workers.js';

// The run log, and the style lists and glossaries as last applied, on PostgreSQL.

/**
 * What workers that are dead (heartbeat older than their lease, or stopped) left behind, cleaned up
 * by whoever notices them: when a run starts and when a worker takes over a dead worker's work. Their
 * runs left running are marked crashed (a killed run shows as crashed as soon as anyone notices, not
 * only at the next run's start), and the segments they were sending are no longer claimed.
 */
export async function noticeDeadWorkers(
  db: pg.Pool | pg.PoolClient,
  exceptWorker: string | undefined,
): Promise<void> {
  await markDeadWorkersRunsCrashed(db, exceptWorker);
  await dropDeadWorkersClaims(db, exceptWorker);
}

async function markDeadWorkersRunsCrashed(
  db: pg.Pool | pg.PoolClient,
  exceptWorker: string | undefined,
): Promise<void> {
  await db.query(
    `UPDATE runs r SET status = 'crashed' WHERE r.status = 'running' AND r.worker_id IS DISTINCT FROM $1
       AND NOT ${RUN_WORKER_ALIVE}`,
    [exceptWorker ?? null],
  );
}

/** SQL: the worker of the run row `r` is alive. */
const RUN_WORKER_ALIVE = `EXISTS (SELECT 1 FROM workers w WHERE w.id = r.worker_id AND ${WORKER_ALIVE('w')})`;

/** SQL: the runs `r` as status shows them (a run whose worker is dead: crashed). */
const RUNS_SEEN = `SELECT r.id, r.started_at, r.finished_at, r.command, r.pid, r.counts, r.billed_characters, r.reason,
    CASE WHEN r.status = 'running' AND NOT ${RUN_WORKER_ALIVE} THEN 'crashed' ELSE r.status END AS status
  FROM runs r`;

export class PgRunLog implements RunLog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string | undefined,
  ) {}

  /** Record a run (after cleaning up after dead workers; live workers' runs are theirs). */
  async start(command: string): Promise<number> {
    await noticeDeadWorkers(this.pool, this.workerId);
    const r = await this.pool.query<{ id: number }>(
      `INSERT INTO runs (started_at, command, status, pid, host, worker_id) VALUES (now(), $1, 'running', $2, $3, $4) RETURNING id`,
      [command, process.pid, os.hostname(), this.workerId ?? null],
    );
    return (r.rows[0] as { id: number }).id;
  }

  async finish(
    id: number,
    outcome: RunOutcome,
    counts: Record<string, number>,
    billed: number,
  ): Promise<void> {
    await this.pool.query(
      'UPDATE runs SET finished_at = now(), status = $2, counts = $3, billed_characters = $4, reason = $5 WHERE id = $1',
      [id, outcome.status, JSON.stringify(counts), billed, outcome.reason ?? null],
    );
  }

  /**
   * Most recent runs first. A run whose worker is dead shows as crashed (whatever machine it ran on:
   * a pid means nothing here), before any worker records it so.
   */
  async recent(limit = 20): Promise<RunRecord[]> {
    const r = await this.pool.query<RunRecord>(`${RUNS_SEEN} ORDER BY r.id DESC LIMIT $1`, [limit]);
    return r.rows;
  }

  /**
   * The runs that ran (a run skipped for the lock did not), most recent first, down to the newest
   * finished one (a crashed run is finished): the last outcome, however many runs were skipped since.
   */
  async lastRan(): Promise<RunRecord[]> {
    const r = await this.pool.query<RunRecord>(
      `WITH ran AS (${RUNS_SEEN} WHERE r.status <> 'skipped')
       SELECT * FROM ran WHERE id >= COALESCE((SELECT max(id) FROM ran WHERE status <> 'running'), 0)
       ORDER BY id DESC`,
    );
    return r.rows;
  }
}

/** The applied style lists (kept in memory for the reconciler, which reads them synchronously). */
export class PgStyleState implements StyleStateStore {
  private readonly rows: CachedRows<AppliedStyle>;

  constructor(pool: pg.Pool) {
    this.rows = new CachedRows<AppliedStyle>(
      pool,
      {
        selectAll: 'SELECT * FROM style_lists ORDER BY key',
        upsert: `INSERT INTO style_lists (key, style_id, name, language, version, hash, applied_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (key) DO UPDATE SET style_id = excluded.style_id, name = excluded.name, language = excluded.language,
           version = excluded.version, hash = excluded.hash, applied_at = excluded.applied_at`,
        remove: 'DELETE FROM style_lists WHERE key = $1',
      },
      (r) => [r.key, r.style_id, r.name, r.language, r.version, r.hash, r.applied_at],
    );
  }

  async load(): Promise<this> {
    await this.rows.load();
    return this;
  }
  getStyle(key: string): AppliedStyle | undefined {
    return this.rows.get(key);
  }
  allStyles(): AppliedStyle[] {
    return this.rows.all();
  }
  setStyle(rec: AppliedStyle): void {
    this.rows.set(rec);
  }
  deleteStyle(key: string): void {
    this.rows.delete(key);
  }
  flush(): Promise<void> {
    return this.rows.flush();
  }
}

/** The applied glossaries (kept in memory for the reconciler, like the style lists). */
export class PgGlossaryState implements GlossaryStateStore {
  private readonly rows: CachedRows<AppliedGlossary>;

  constructor(pool: pg.Pool) {
    this.rows = new CachedRows<AppliedGlossary>(
      pool,
      {
        selectAll: 'SELECT key, glossary_id, name, hashes, applied_at FROM glossaries ORDER BY key',
        upsert: `INSERT INTO glossaries (key, glossary_id, name, hashes, applied_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key) DO UPDATE SET glossary_id = excluded.glossary_id, name = excluded.name,
           hashes = excluded.hashes, applied_at = excluded.applied_at`,
        remove: 'DELETE FROM glossaries WHERE key = $1',
      },
      (r) => [r.key, r.glossary_id, r.name, JSON.stringify(r.hashes), r.applied_at],
    );
  }

  async load(): Promise<this> {
    await this.rows.load();
    return this;
  }
  getGlossary(key: string): AppliedGlossary | undefined {
    return this.rows.get(key);
  }
  allGlossaries(): AppliedGlossary[] {
    return this.rows.all();
  }
  setGlossary(rec: AppliedGlossary): void {
    this.rows.set(rec);
  }
  deleteGlossary(key: string): void {
    this.rows.delete(key);
  }
  flush(): Promise<void> {
    return this.rows.flush();
  }
}
