import type pg from 'pg';
import type { SharedBudget } from '../shared-types.js';
import { ADVISORY } from './advisory.js';
import { billedSinceSql } from '../billed.js';
import { inTransaction } from './tx.js';
import { WORKER_ALIVE } from './workers.js';

// The monthly budget held for every worker of a pipeline together. A worker reserves an upload's
// estimated characters in budget_reservations before it uploads, one worker at a time (an
// advisory lock for the transaction), against what the pipeline billed this month plus what live
// workers have reserved; the reservation is deleted once the bill is recorded on the job (it is
// counted twice for that moment, never not at all). A dead or stopped worker's reservations no
// longer count: they expire with its lease.

export class PgSharedBudget implements SharedBudget {
  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string,
  ) {}

  async reserveMonth(
    jobId: number,
    characters: number,
    perMonth: number,
    monthStart: string,
  ): Promise<{ used: number } | undefined> {
    return inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY.budget.toString()]);
      const r = await c.query<{ billed: number; reserved: number }>(
        `SELECT
           (${billedSinceSql('$1::timestamptz')}) AS billed,
           COALESCE((SELECT SUM(r.characters) FROM budget_reservations r JOIN workers w ON w.id = r.worker_id
                     WHERE ${WORKER_ALIVE('w')} AND r.job_id <> $2), 0)::int8 AS reserved`,
        [monthStart, jobId],
      );
      const used = (r.rows[0]?.billed ?? 0) + (r.rows[0]?.reserved ?? 0);
      if (used + characters > perMonth) return { used };
      await c.query(
        `INSERT INTO budget_reservations (job_id, worker_id, characters) VALUES ($1, $2, $3)
         ON CONFLICT (job_id) DO UPDATE SET worker_id = $2, characters = $3, reserved_at = now()`,
        [jobId, this.workerId, characters],
      );
      return undefined;
    });
  }

  async release(jobId: number): Promise<void> {
    await this.pool.query('DELETE FROM budget_reservations WHERE job_id = $1 AND worker_id = $2', [
      jobId,
      this.workerId,
    ]);
  }
}
