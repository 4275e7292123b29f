import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from '../../log/logger.js';
import { isUnreachable } from './connect.js';

// A worker's writes must outlive a PostgreSQL restart or failover: an upload's document id that
// cannot be recorded would be paid for again by the next run. So every statement of a worker waits
// while the server cannot be reached (up to `outageMs`), then goes on as if nothing happened. The
// heartbeat does not wait (it is what tells the worker to pause new uploads meanwhile).

/** How long a worker waits for PostgreSQL before its run fails (what is recorded stays recorded). */
export const DEFAULT_OUTAGE_MS = 15 * 60_000;

/** Run `fn` again while it fails because the server cannot be reached, for up to `outageMs`. */
export async function whileUnreachable<T>(
  fn: () => Promise<T>,
  outageMs: number,
  logger?: Logger,
): Promise<T> {
  const started = Date.now();
  let delay = 200;
  for (let said = false; ;) {
    try {
      return await fn();
    } catch (err) {
      if (!isUnreachable(err) || Date.now() - started > outageMs) throw err;
      if (!said)
        logger?.warn({ err: (err as Error).message }, 'PostgreSQL cannot be reached: waiting for it');
      said = true;
      await sleep(delay);
      delay = Math.min(2_000, delay * 2);
    }
  }
}

/**
 * The same pool, whose `query` and `connect` wait out an outage. A statement cut inside a
 * transaction is the caller's to repeat (the transaction was rolled back): the job ledger repeats
 * its whole transaction.
 */
export function patientPool(pool: pg.Pool, outageMs: number, logger?: Logger): pg.Pool {
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query')
        return (...args: unknown[]) =>
          whileUnreachable(
            () => (target.query as (...a: unknown[]) => Promise<unknown>).apply(target, args),
            outageMs,
            logger,
          );
      if (prop === 'connect') return () => whileUnreachable(() => target.connect(), outageMs, logger);
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
