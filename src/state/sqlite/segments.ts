import type Database from 'better-sqlite3';
import { preferred } from '../memory-preference.js';
import { sqliteStatement } from '../billed.js';
import { leverageRead, leverageStatement, type JobLeverageCounts } from '../leverage-ledger.js';
import type { LeverageRow, LeverageScope } from '../leverage-ledger.js';
import type { Recalled } from '../memory-types.js';
import type { NewTextRequest, SegmentMemory, SegmentMemoryRow, TextRequestRecord } from '../segment-types.js';

// The segment memory on SQLite (see SegmentMemory): translated segments by key, and the text requests
// recorded before they are sent. better-sqlite3 is synchronous: a row is written when a call returns.

// Keys are bound as one JSON array read by json_each: one statement prepared once answers any number
// of keys in one query (a list of `?` per call was prepared again each time, 500 keys at most).
const KEYS = 'SELECT value FROM json_each(?)';

const now = () => new Date().toISOString();

export class SqliteSegmentMemory implements SegmentMemory {
  private readonly putStmt;
  private readonly sentStmt;
  private readonly stateStmt;
  private readonly recallStmt;
  private readonly forgetStmt;
  constructor(private readonly db: Database.Database) {
    this.putStmt = db.prepare(
      `INSERT INTO segment_memory (key, origin, source, source_lang, target_lang, settings, translation, run_id, created_at, document)
       VALUES (@key, @origin, @source, @source_lang, @target_lang, @settings, @translation, @run_id, @created_at, @document)
       ON CONFLICT (key, origin) DO UPDATE SET translation = excluded.translation, run_id = excluded.run_id,
         created_at = excluded.created_at, document = coalesce(excluded.document, document)`,
    );
    this.sentStmt = db.prepare<[number, number, number, number, string, string]>(
      `INSERT INTO text_requests (job_id, run_id, texts, characters, request, state, sent_at) VALUES (?, ?, ?, ?, ?, 'sent', ?)`,
    );
    this.stateStmt = db.prepare<[string, string | null, number]>(
      'UPDATE text_requests SET state = ?, answered_at = ? WHERE id = ?',
    );
    this.recallStmt = db.prepare<[string], Recalled & { key: string }>(
      `SELECT key, translation, origin, run_id FROM segment_memory WHERE key IN (${KEYS})`,
    );
    this.forgetStmt = db.prepare<[string]>(
      `DELETE FROM segment_memory WHERE origin = 'service' AND key IN (${KEYS})`,
    );
  }

  async lookup(keys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [k, r] of await this.recall(keys)) out.set(k, r.translation);
    return out;
  }

  async recall(keys: readonly string[]): Promise<Map<string, Recalled>> {
    const out = new Map<string, Recalled>();
    if (keys.length === 0) return out;
    for (const r of this.recallStmt.all(JSON.stringify([...new Set(keys)])))
      out.set(r.key, preferred(out.get(r.key), r));
    return out;
  }

  async put(rows: readonly SegmentMemoryRow[]): Promise<void> {
    this.db.transaction(() => this.putRows(rows))();
  }

  private putRows(rows: readonly SegmentMemoryRow[]): void {
    const at = now();
    for (const r of rows) this.putStmt.run({ ...r, document: r.document ?? null, created_at: at });
  }

  async forgetAnswers(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.forgetStmt.run(JSON.stringify([...new Set(keys)]));
  }

  async textRequestSent(r: NewTextRequest): Promise<number> {
    return Number(
      this.sentStmt.run(r.jobId, r.runId, r.texts, r.characters, r.request, now()).lastInsertRowid,
    );
  }

  async textRequestAnswered(id: number, rows: readonly SegmentMemoryRow[]): Promise<void> {
    this.db.transaction(() => {
      this.putRows(rows);
      this.stateStmt.run('answered', now(), id);
    })();
  }

  async textRequestLost(id: number): Promise<void> {
    this.stateStmt.run('lost', null, id);
  }

  async textRequestNotSent(id: number): Promise<void> {
    this.db.prepare<[number]>('DELETE FROM text_requests WHERE id = ?').run(id);
  }

  async unansweredOf(jobId: number): Promise<TextRequestRecord[]> {
    return this.db
      .prepare<[number], TextRequestRecord>(
        `SELECT * FROM text_requests WHERE job_id = ? AND state = 'sent' ORDER BY id`,
      )
      .all(jobId);
  }

  async billedOf(jobId: number): Promise<number> {
    const row = this.db
      .prepare<[number], { n: number | null }>(
        'SELECT SUM(characters) AS n FROM text_requests WHERE job_id = ?',
      )
      .get(jobId);
    return row?.n ?? 0;
  }

  async recordLeverage(jobId: number, runId: number, counts: JobLeverageCounts): Promise<void> {
    const st = sqliteStatement(leverageStatement(jobId, runId, counts));
    this.db.prepare(st.sql).run(st.params);
  }

  async leverageRows(scope: LeverageScope): Promise<LeverageRow[]> {
    const read = leverageRead(scope, 'sqlite');
    return this.db.prepare<unknown[], LeverageRow>(read.sql).all(...read.values);
  }
}
