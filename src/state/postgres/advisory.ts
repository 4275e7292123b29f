import type pg from 'pg';
import { withClient } from './tx.js';

// One worker at a time for work that must not run twice at once across machines (style list
// reconciliation): a session advisory lock held on one connection while `fn` runs. The others
// wait for it, then run `fn` themselves and find the state it left (nothing left to do).

export function withAdvisoryLock<T>(pool: pg.Pool, key: bigint, fn: () => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [key.toString()]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key.toString()]).catch(() => undefined);
    }
  });
}

/** Advisory lock keys (64-bit, fixed): the same in every process and every locsync version. */
export const ADVISORY = {
  migrate: 0x6c6f6373_796e6301n,
  styles: 0x6c6f6373_796e6302n,
  budget: 0x6c6f6373_796e6303n,
} as const;
