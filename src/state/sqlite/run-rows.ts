import type Database from 'better-sqlite3';
import type { RunRecord, RunStopReason } from '../run-types.js';
import type { RunRows } from './inventory.js';

// state.db's runs table: one row per sync or watch (command, outcome, counts, billed characters,
// why it stopped), the process's pid while it runs.

const now = () => new Date().toISOString();

interface RunRow extends Omit<RunRecord, 'counts'> {
  counts: string | null;
}

function parseRun(r: RunRow): RunRecord {
  return { ...r, counts: r.counts ? (JSON.parse(r.counts) as Record<string, number>) : null };
}

export class SqliteRunRows implements RunRows {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      startRun: db.prepare(`INSERT INTO runs (started_at, command, status, pid) VALUES (?, ?, 'running', ?)`),
      finishRun: db.prepare(
        'UPDATE runs SET finished_at = ?, status = ?, counts = ?, billed_characters = ?, reason = ? WHERE id = ?',
      ),
      getRun: db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?'),
      runs: db.prepare<[number], RunRow>('SELECT * FROM runs ORDER BY id DESC LIMIT ?'),
      ranRuns: db.prepare<[], RunRow>(`SELECT * FROM runs WHERE status <> 'skipped' ORDER BY id DESC`),
      runningRuns: db.prepare<[], RunRow>(`SELECT * FROM runs WHERE status = 'running'`),
      markRun: db.prepare('UPDATE runs SET status = ?, finished_at = COALESCE(finished_at, ?) WHERE id = ?'),
    };
  }

  /** Record a run; runs left 'running' by a process that died are marked 'crashed'. */
  startRun(command: string): number {
    for (const r of this.stmts.runningRuns.all()) {
      if (r.pid !== process.pid) this.stmts.markRun.run('crashed', null, r.id);
    }
    return Number(this.stmts.startRun.run(now(), command, process.pid).lastInsertRowid);
  }
  finishRun(
    id: number,
    status: RunRecord['status'],
    counts: Record<string, number>,
    billed: number,
    reason?: RunStopReason,
  ): void {
    this.stmts.finishRun.run(now(), status, JSON.stringify(counts), billed, reason ?? null, id);
  }
  getRun(id: number): RunRecord | undefined {
    const r = this.stmts.getRun.get(id);
    return r ? parseRun(r) : undefined;
  }
  /** Most recent runs first. */
  recentRuns(limit = 20): RunRecord[] {
    return this.stmts.runs.all(limit).map(parseRun);
  }
  /** The runs that ran (a run skipped for the lock did not), most recent first, read as asked for. */
  *ranRuns(): Generator<RunRecord> {
    for (const r of this.stmts.ranRuns.iterate()) yield parseRun(r);
  }
}
