import type pg from 'pg';
import { pgStatement } from '../billed.js';
import { DELIVERED_BATCH, deliveredJobStatement } from '../delivered-bulk.js';
import type { DeliveredOutput } from '../job-types.js';
import { recordFiles } from './inventory.js';
import { inTransaction } from './tx.js';

// JobLedger.deliveredInBulk on PostgreSQL (../delivered-bulk.ts): each batch's source records and
// done jobs in one transaction.

export async function recordDeliveredInBulk(
  pool: pg.Pool,
  outputs: readonly DeliveredOutput[],
): Promise<number> {
  for (let at = 0; at < outputs.length; at += DELIVERED_BATCH) {
    const batch = outputs.slice(at, at + DELIVERED_BATCH);
    await inTransaction(pool, async (c) => {
      await recordFiles(
        c,
        batch.map((d) => d.source),
      );
      const stamp = new Date().toISOString();
      for (const d of batch) {
        const { sql, values } = pgStatement(deliveredJobStatement(d, stamp));
        await c.query(sql, values);
      }
      // As a delivery does: nothing vouches for any output any more.
      await c.query('DELETE FROM snapshots');
    });
  }
  return outputs.length;
}
