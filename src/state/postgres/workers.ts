import crypto from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import { VERSION } from '../../version.js';
import { inTransaction } from './tx.js';

// The workers table: one row per locsync process working on a PostgreSQL state. A worker beats
// (heartbeat_at) every third of its lease; each beat also renews the leases of the work units and
// limit places it holds. All times are the database's clock, so machines with skewed clocks agree.
// A worker whose last beat is older than its lease is dead: its units and places are free to take.

/** SQL: the worker row `w` is alive (beat within its lease, not stopped), on the database's clock. */
export const WORKER_ALIVE = (w: string) =>
  `(${w}.stopped_at IS NULL AND ${w}.heartbeat_at + make_interval(secs => ${w}.lease_seconds) > now())`;

export interface WorkerRow {
  id: string;
  host: string;
  pid: number;
  command: string;
  version: string;
  started_at: string;
  heartbeat_at: string;
  lease_seconds: number;
  stopped_at: string | null;
}

export interface WorkerStatus extends WorkerRow {
  /** Work units it holds (claims whose lease has not run out). */
  jobs_held: number;
  /** Not stopped, and its last heartbeat is younger than its lease. */
  alive: boolean;
  /** Seconds since its last heartbeat (database clock). */
  heartbeat_age_s: number;
}

/** Record a new worker and return its id (host:pid:random, unique across restarts of a pid). */
export async function registerWorker(
  pool: pg.Pool,
  opts: { command: string; leaseSeconds: number },
): Promise<string> {
  const host = os.hostname();
  const id = `${host}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  await pool.query(
    `INSERT INTO workers (id, host, pid, command, version, started_at, heartbeat_at, lease_seconds)
     VALUES ($1, $2, $3, $4, $5, now(), now(), $6)`,
    [id, host, process.pid, opts.command, VERSION, opts.leaseSeconds],
  );
  return id;
}

/**
 * One heartbeat: the worker's row and the leases of everything it holds, in one transaction.
 * Returns false when the row says the worker was stopped (it must stop working).
 */
export async function beat(pool: pg.Pool, workerId: string, leaseSeconds: number): Promise<boolean> {
  return inTransaction(pool, async (c) => {
    const r = await c.query(
      `UPDATE workers SET heartbeat_at = now(), lease_seconds = $2 WHERE id = $1 AND stopped_at IS NULL RETURNING id`,
      [workerId, leaseSeconds],
    );
    const lease = `now() + make_interval(secs => $2)`;
    await c.query(`UPDATE work_claims SET lease_until = ${lease} WHERE worker_id = $1`, [
      workerId,
      leaseSeconds,
    ]);
    await c.query(`UPDATE locsync_account.limit_slots SET held_until = ${lease} WHERE worker_id = $1`, [
      workerId,
      leaseSeconds,
    ]);
    return r.rowCount === 1;
  });
}

/** Whether a worker is alive (a worker row unknown to this state is not). */
export async function workerAlive(db: pg.Pool | pg.PoolClient, workerId: string): Promise<boolean> {
  const r = await db.query<{ alive: boolean }>(
    `SELECT ${WORKER_ALIVE('w')} AS alive FROM workers w WHERE w.id = $1`,
    [workerId],
  );
  return r.rows[0]?.alive ?? false;
}

/** A worker leaving cleanly: stopped, its units, segments and places given back at once. */
export async function stopWorker(pool: pg.Pool, workerId: string): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query('UPDATE workers SET stopped_at = now() WHERE id = $1', [workerId]);
    await c.query('DELETE FROM work_claims WHERE worker_id = $1', [workerId]);
    await c.query('DELETE FROM segment_claims WHERE worker_id = $1', [workerId]);
    await c.query(
      'UPDATE locsync_account.limit_slots SET worker_id = NULL, held_until = NULL WHERE worker_id = $1',
      [workerId],
    );
  });
}

/**
 * Workers for `status`: every running or dead one, and the stopped ones of the last day, newest
 * first, with the units each holds.
 */
export async function listWorkers(pool: pg.Pool): Promise<WorkerStatus[]> {
  const r = await pool.query<WorkerStatus>(
    `SELECT w.*,
       (SELECT count(*)::int FROM work_claims c WHERE c.worker_id = w.id AND c.lease_until > now()) AS jobs_held,
       ${WORKER_ALIVE('w')} AS alive,
       extract(epoch FROM now() - w.heartbeat_at)::float8 AS heartbeat_age_s
     FROM workers w
     WHERE w.stopped_at IS NULL OR w.stopped_at > now() - interval '1 day'
     ORDER BY w.started_at DESC`,
  );
  return r.rows;
}
