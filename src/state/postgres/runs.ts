import os from 'node:os';
import type pg from 'pg';
import type { AppliedStyle, RunLog, RunOutcome, RunRecord, StyleStateStore } from '../types.js';

// The run log and the applied style lists on PostgreSQL.

/**
 * Runs left running by workers that are dead (heartbeat older than their lease, or stopped) are
 * marked crashed. Done when a run starts and when a worker takes over a dead worker's work, so a
 * killed run shows as crashed as soon as anyone notices, not only at the next run's start.
 */
export async function markDeadWorkersRunsCrashed(
  db: pg.Pool | pg.PoolClient,
  exceptWorker: string | undefined,
): Promise<void> {
  await db.query(
    `UPDATE runs r SET status = 'crashed' WHERE r.status = 'running' AND r.worker_id IS DISTINCT FROM $1 AND NOT EXISTS (
       SELECT 1 FROM workers w WHERE w.id = r.worker_id AND w.stopped_at IS NULL
         AND w.heartbeat_at + make_interval(secs => w.lease_seconds) > now())`,
    [exceptWorker ?? null],
  );
}

export class PgRunLog implements RunLog {
  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string | undefined,
  ) {}

  /** Record a run (after marking the runs of dead workers crashed; live workers' runs are theirs). */
  async start(command: string): Promise<number> {
    await markDeadWorkersRunsCrashed(this.pool, this.workerId);
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

  /** Most recent runs first. */
  async recent(limit = 20): Promise<RunRecord[]> {
    const r = await this.pool.query<RunRecord>(
      `SELECT id, started_at, finished_at, command, status, pid, counts, billed_characters, reason
       FROM runs ORDER BY id DESC LIMIT $1`,
      [limit],
    );
    return r.rows;
  }
}

/**
 * The applied style lists, read once and kept in memory for the reconciler (which reads them
 * synchronously); every change is written through, and `flush` waits for the writes (and fails
 * with the first error) before the run goes on to documents that depend on them.
 */
export class PgStyleState implements StyleStateStore {
  private readonly byKey = new Map<string, AppliedStyle>();
  private writes: Promise<unknown>[] = [];

  constructor(private readonly pool: pg.Pool) {}

  async load(): Promise<this> {
    const r = await this.pool.query<AppliedStyle>('SELECT * FROM style_lists ORDER BY key');
    this.byKey.clear();
    for (const s of r.rows) this.byKey.set(s.key, s);
    return this;
  }

  getStyle(key: string): AppliedStyle | undefined {
    return this.byKey.get(key);
  }
  allStyles(): AppliedStyle[] {
    return [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  }
  setStyle(rec: AppliedStyle): void {
    this.byKey.set(rec.key, rec);
    this.track(
      this.pool.query(
        `INSERT INTO style_lists (key, style_id, name, language, version, hash, applied_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (key) DO UPDATE SET style_id = excluded.style_id, name = excluded.name, language = excluded.language,
           version = excluded.version, hash = excluded.hash, applied_at = excluded.applied_at`,
        [rec.key, rec.style_id, rec.name, rec.language, rec.version, rec.hash, rec.applied_at],
      ),
    );
  }
  deleteStyle(key: string): void {
    this.byKey.delete(key);
    this.track(this.pool.query('DELETE FROM style_lists WHERE key = $1', [key]));
  }

  private track(write: Promise<unknown>): void {
    // Handled here so that a failure waits for flush() instead of ending the process.
    write.catch(() => undefined);
    this.writes.push(write);
  }

  /** Wait for every write so far; the first failure is thrown. */
  async flush(): Promise<void> {
    const pending = this.writes;
    this.writes = [];
    await Promise.all(pending);
  }
}
