import type pg from 'pg';

/**
 * A connection of `pool` for several statements. While it is checked out, a connection cut by the
 * server (restart, failover) is an error of the statement that runs, not an unhandled 'error'
 * event that would end the process; a connection that failed is destroyed, not given back.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  let failure: Error | undefined;
  try {
    return await fn(client);
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    client.off('error', ignore);
    client.release(failure);
  }
}

/** Run `fn` in one transaction on one connection of `pool` (rolled back when it throws). */
export function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
