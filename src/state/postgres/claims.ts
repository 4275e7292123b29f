import type pg from 'pg';

// Work units held by one worker at a time. A unit is one (source content, target, settings): the
// thing that is uploaded and paid for once. Claiming is an upsert that succeeds only when the unit
// is free, already ours, or its holder's lease ran out (the holder died or lost the database);
// the worker's heartbeat renews its leases (workers.ts). Taking over a unit that has a job with a
// document id means resuming that job (poll, download), never uploading it again.

/** The key of a unit of work (what makes two jobs the same paid translation). */
export function unitKey(u: { sha256: string; target_lang: string; fingerprint: string }): string {
  return `${u.sha256}:${u.target_lang}:${u.fingerprint}`;
}

export type ClaimResult =
  | {
      claimed: true;
      /** The job recorded for the unit so far (by this worker or a dead one), if any. */
      jobId: number | null;
      /** The unit was held by another worker whose lease ran out. */
      takenOverFrom: string | null;
    }
  | { claimed: false; holder: string; leaseUntil: string };

const LEASE = 'clock_timestamp() + make_interval(secs => $3)';

/** Claim `unit` for `workerId` for `leaseSeconds`, unless another live worker holds it. */
export async function claimUnit(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  unit: string,
  leaseSeconds: number,
): Promise<ClaimResult> {
  const r = await db.query<{ job_id: number | null; previous: string | null }>(
    `WITH prev AS (SELECT worker_id FROM work_claims WHERE unit = $1)
     INSERT INTO work_claims AS c (unit, worker_id, lease_until, claimed_at)
     VALUES ($1, $2, ${LEASE}, clock_timestamp())
     ON CONFLICT (unit) DO UPDATE SET worker_id = excluded.worker_id, lease_until = excluded.lease_until,
       claimed_at = CASE WHEN c.worker_id = excluded.worker_id THEN c.claimed_at ELSE excluded.claimed_at END,
       takeovers = c.takeovers + (c.worker_id <> excluded.worker_id)::int
     WHERE c.worker_id = excluded.worker_id OR c.lease_until < clock_timestamp()
     RETURNING c.job_id, (SELECT worker_id FROM prev) AS previous`,
    [unit, workerId, leaseSeconds],
  );
  const row = r.rows[0];
  if (row)
    return {
      claimed: true,
      jobId: row.job_id,
      takenOverFrom: row.previous && row.previous !== workerId ? row.previous : null,
    };
  const held = await db.query<{ worker_id: string; lease_until: string }>(
    'SELECT worker_id, lease_until FROM work_claims WHERE unit = $1',
    [unit],
  );
  const h = held.rows[0];
  // Released between the two statements: try once more.
  if (!h) return claimUnit(db, workerId, unit, leaseSeconds);
  return { claimed: false, holder: h.worker_id, leaseUntil: h.lease_until };
}

/** Record which job carries a unit (so that a worker taking it over finds the document id and key). */
export async function attachJob(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  unit: string,
  jobId: number,
): Promise<boolean> {
  const r = await db.query('UPDATE work_claims SET job_id = $3 WHERE unit = $1 AND worker_id = $2', [
    unit,
    workerId,
    jobId,
  ]);
  return r.rowCount === 1;
}

/**
 * Renew one unit's lease, and say whether it is still ours: checked right before an upload (a
 * worker that stalled past its lease may have lost the unit to another worker and must not upload).
 */
export async function holdsUnit(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  unit: string,
  leaseSeconds: number,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE work_claims SET lease_until = ${LEASE} WHERE unit = $1 AND worker_id = $2 RETURNING 1`,
    [unit, workerId, leaseSeconds],
  );
  return r.rowCount === 1;
}

/** Give a unit back (its job is done or failed for good, or the worker stops working on it). */
export async function releaseUnit(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  unit: string,
): Promise<void> {
  await db.query('DELETE FROM work_claims WHERE unit = $1 AND worker_id = $2', [unit, workerId]);
}

export interface OrphanedUnit {
  unit: string;
  jobId: number;
  previous: string;
}

/**
 * Take over up to `limit` units whose holder's lease ran out and that carry a job (the work of a
 * dead worker), oldest lease first. SKIP LOCKED: workers looking at the same moment each get
 * different units and nobody waits for another's transaction.
 */
export async function takeOverOrphans(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  leaseSeconds: number,
  limit: number,
): Promise<OrphanedUnit[]> {
  const r = await db.query<{ unit: string; job_id: number; previous: string }>(
    `WITH orphans AS (
       SELECT unit, worker_id FROM work_claims
       WHERE lease_until < clock_timestamp() AND job_id IS NOT NULL AND worker_id <> $2
       ORDER BY lease_until LIMIT $1 FOR UPDATE SKIP LOCKED)
     UPDATE work_claims c SET worker_id = $2, lease_until = clock_timestamp() + make_interval(secs => $3),
       claimed_at = clock_timestamp(), takeovers = c.takeovers + 1
     FROM orphans o WHERE c.unit = o.unit
     RETURNING c.unit, c.job_id, o.worker_id AS previous`,
    [limit, workerId, leaseSeconds],
  );
  return r.rows.map((x) => ({ unit: x.unit, jobId: x.job_id, previous: x.previous }));
}

/** The worker other than `workerId` whose lease on `unit` is running, if any. */
export async function holderOf(
  db: pg.Pool | pg.PoolClient,
  workerId: string,
  unit: string,
): Promise<string | undefined> {
  const r = await db.query<{ worker_id: string }>(
    'SELECT worker_id FROM work_claims WHERE unit = $1 AND worker_id <> $2 AND lease_until > clock_timestamp()',
    [unit, workerId],
  );
  return r.rows[0]?.worker_id;
}

/**
 * Work other workers hold or left unfinished: units whose holder's lease is running, and units a
 * dead worker left with a job (to be taken over). What a sync waits for before it ends.
 */
export async function unitsHeldByOthers(db: pg.Pool | pg.PoolClient, workerId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM work_claims
     WHERE worker_id <> $1 AND (lease_until > clock_timestamp() OR job_id IS NOT NULL)`,
    [workerId],
  );
  return r.rows[0]?.n ?? 0;
}

/** Units a dead worker left with a job: its lease ran out (to be taken over). */
export async function orphanedUnits(db: pg.Pool | pg.PoolClient, workerId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM work_claims
     WHERE worker_id <> $1 AND lease_until <= clock_timestamp() AND job_id IS NOT NULL`,
    [workerId],
  );
  return r.rows[0]?.n ?? 0;
}

/** Give back every unit `workerId` holds (its work is done: what it still holds, nobody works on). */
export async function releaseAllUnits(db: pg.Pool | pg.PoolClient, workerId: string): Promise<void> {
  await db.query('DELETE FROM work_claims WHERE worker_id = $1', [workerId]);
}
