import type pg from 'pg';
import type { SegmentClaims } from '../segment-types.js';
import { WORKER_ALIVE } from './workers.js';

// Segments a worker of the pipeline is sending right now (segment_claims), by memory key: two
// documents that share a paragraph, translated at once on two machines, pay for it once. A claim
// holds while its worker is alive (heartbeat within its lease, not stopped: the judgement units of
// work get); a dead or stopped worker's claim is taken over by the next worker that asks.

/** SQL: the claim row `c` belongs to a live worker. */
const HOLDER_ALIVE = (c: string) =>
  `EXISTS (SELECT 1 FROM workers w WHERE w.id = ${c}.worker_id AND ${WORKER_ALIVE('w')})`;

/**
 * Drop the segment claims of dead or stopped workers (not `exceptWorker`'s): nobody waits for them
 * any more (`claim` and `heldElsewhere` pass them by), but the row of a key nobody claims again
 * would stay for ever. Joined with the dead worker's row, so that a claim another worker takes over
 * at this very moment is checked again against its new holder and kept.
 */
export async function dropDeadWorkersClaims(
  db: pg.Pool | pg.PoolClient,
  exceptWorker: string | undefined,
): Promise<void> {
  await db.query(
    `DELETE FROM segment_claims c USING workers w
     WHERE w.id = c.worker_id AND w.id IS DISTINCT FROM $1 AND NOT ${WORKER_ALIVE('w')}`,
    [exceptWorker ?? null],
  );
}

export class PgSegmentClaims implements SegmentClaims {
  constructor(
    private readonly pool: pg.Pool,
    private readonly workerId: string,
  ) {}

  async claim(keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    // Sorted: workers claiming overlapping keys at once lock them in one order (no deadlock).
    const sorted = [...new Set(keys)].sort();
    const r = await this.pool.query<{ key: string }>(
      `INSERT INTO segment_claims AS c (key, worker_id, claimed_at)
       SELECT k, $2, clock_timestamp() FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n
       ON CONFLICT (key) DO UPDATE SET worker_id = excluded.worker_id, claimed_at = excluded.claimed_at
       WHERE c.worker_id = excluded.worker_id OR NOT ${HOLDER_ALIVE('c')}
       RETURNING c.key`,
      [sorted, this.workerId],
    );
    const mine = new Set(r.rows.map((x) => x.key));
    const others = sorted.filter((k) => !mine.has(k));
    if (others.length === 0) return new Map();
    const held = await this.heldElsewhere(others);
    // Given back between the two statements: claimed again (each round takes at least one key or
    // finds it held, so this ends).
    const freed = others.filter((k) => !held.has(k));
    if (freed.length === 0) return held;
    for (const [k, w] of await this.claim(freed)) held.set(k, w);
    return held;
  }

  async heldElsewhere(keys: readonly string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const r = await this.pool.query<{ key: string; worker_id: string }>(
      `SELECT c.key, c.worker_id FROM segment_claims c
       WHERE c.key = ANY($1::text[]) AND c.worker_id <> $2 AND ${HOLDER_ALIVE('c')}`,
      [[...new Set(keys)], this.workerId],
    );
    return new Map(r.rows.map((x) => [x.key, x.worker_id]));
  }

  async release(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query('DELETE FROM segment_claims WHERE worker_id = $2 AND key = ANY($1::text[])', [
      [...new Set(keys)],
      this.workerId,
    ]);
  }
}
