import type pg from 'pg';

// Rows the reconcilers read synchronously (style lists and glossaries as last applied): read once
// into memory, every change written through, and `flush` waits for the writes (and fails with the
// first error) before the run goes on to documents that depend on them.

export class CachedRows<T extends { key: string }> {
  private readonly byKey = new Map<string, T>();
  private writes: Promise<unknown>[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly sql: { selectAll: string; upsert: string; remove: string },
    /** The upsert's parameters for one row. */
    private readonly params: (row: T) => unknown[],
  ) {}

  async load(): Promise<void> {
    const r = await this.pool.query<T>(this.sql.selectAll);
    this.byKey.clear();
    for (const row of r.rows) this.byKey.set(row.key, row);
  }

  get(key: string): T | undefined {
    return this.byKey.get(key);
  }

  all(): T[] {
    return [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  set(row: T): void {
    this.byKey.set(row.key, row);
    this.track(this.pool.query(this.sql.upsert, this.params(row)));
  }

  delete(key: string): void {
    this.byKey.delete(key);
    this.track(this.pool.query(this.sql.remove, [key]));
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
