// The job ledger's writes, one commit per turn of the event loop (issue 51). A first sync drives
// dozens of jobs at once and writes six rows' transitions for each: committed one by one, every
// commit writes the pages of the row and of its four indexes to the WAL again (a tenth of a first
// sync's time). A write asked for is queued, and the queue runs in one transaction once the turn's
// callbacks are done (setImmediate); each write's promise settles only after that COMMIT. The rule
// holds as before: whoever awaits a record (before an upload, a download, a delivery) acts only once
// it is committed. Each write runs in a savepoint of its own: one that fails is undone alone and
// rejects its caller; a COMMIT that fails rejects every write of the group.

/** Runs `fn` in a transaction, or in a savepoint when one is open (better-sqlite3's transaction()). */
export type InTransaction = <T>(fn: () => T) => T;

interface Queued {
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class WriteGroup {
  private queue: Queued[] = [];
  private scheduled = false;

  constructor(
    private readonly transaction: InTransaction,
    /** Whether the connection is still open (a group left after close() rejects its writes). */
    private readonly open: () => boolean,
  ) {}

  /** `fn` run in the turn's transaction; settles once that transaction is committed. */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Every queued write in one transaction, then their promises settled. Never throws. */
  private flush(): void {
    this.scheduled = false;
    const group = this.queue;
    this.queue = [];
    const settled: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      if (!this.open()) throw new Error('the state was closed before its writes were committed');
      this.transaction(() => {
        for (const q of group) {
          try {
            settled.push({ ok: true, value: this.transaction(q.run) });
          } catch (err) {
            settled.push({ ok: false, err });
          }
        }
      });
    } catch (err) {
      for (const q of group) q.reject(err);
      return;
    }
    group.forEach((q, i) => {
      const s = settled[i] as (typeof settled)[number];
      if (s.ok) q.resolve(s.value);
      else q.reject(s.err);
    });
  }
}
