import type Database from 'better-sqlite3';
import { preferred } from '../memory-preference.js';
import { sqliteStatement } from '../billed.js';
import { leverageRead, leverageStatement, type JobLeverageCounts } from '../leverage-ledger.js';
import type { LeverageRow, LeverageScope } from '../leverage-ledger.js';
import type { Recalled } from '../memory-types.js';
import type { AnsweredShare } from '../segment-types.js';
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
  private readonly statesStmt;
  private readonly notSentStmt;
  private readonly recallStmt;
  private readonly forgetStmt;
  constructor(private readonly db: Database.Database) {
    this.putStmt = db.prepare(
      `INSERT INTO segment_memory (key, origin, source, source_lang, target_lang, settings, translation, run_id, created_at, document)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key, origin) DO UPDATE SET translation = excluded.translation, run_id = excluded.run_id,
         created_at = excluded.created_at, document = coalesce(excluded.document, document)`,
    );
    this.sentStmt = db.prepare<[number, number, number, number, string, string]>(
      `INSERT INTO text_requests (job_id, run_id, texts, characters, request, state, sent_at) VALUES (?, ?, ?, ?, ?, 'sent', ?)`,
    );
    this.stateStmt = db.prepare<[string, string | null, number]>(
      'UPDATE text_requests SET state = ?, answered_at = ? WHERE id = ?',
    );
    this.statesStmt = db.prepare<[string, string | null, string]>(
      `UPDATE text_requests SET state = ?, answered_at = ? WHERE id IN (${KEYS})`,
    );
    this.notSentStmt = db.prepare<[string]>(`DELETE FROM text_requests WHERE id IN (${KEYS})`);
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
    this.db.transaction(() => this.putRows(rows, now()))();
  }

  private putRows(rows: readonly SegmentMemoryRow[], at: string): void {
    for (const r of rows)
      this.putStmt.run(
        r.key,
        r.origin,
        r.source,
        r.source_lang,
        r.target_lang,
        r.settings,
        r.translation,
        r.run_id,
        at,
        r.document ?? null,
      );
  }

  async forgetAnswers(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.forgetStmt.run(JSON.stringify([...new Set(keys)]));
  }

  async textRequestsSent(shares: readonly NewTextRequest[]): Promise<number[]> {
    const at = now();
    return this.db.transaction(() =>
      shares.map((r) =>
        Number(this.sentStmt.run(r.jobId, r.runId, r.texts, r.characters, r.request, at).lastInsertRowid),
      ),
    )();
  }

  async textRequestsAnswered(shares: readonly AnsweredShare[]): Promise<void> {
    const at = now();
    this.db.transaction(() => {
      for (const s of shares) {
        this.putRows(s.rows, at);
        this.stateStmt.run('answered', at, s.id);
      }
    })();
  }

  async textRequestsLost(ids: readonly number[]): Promise<void> {
    if (ids.length > 0) this.statesStmt.run('lost', null, JSON.stringify(ids));
  }

  async textRequestsNotSent(ids: readonly number[]): Promise<void> {
    if (ids.length > 0) this.notSentStmt.run(JSON.stringify(ids));
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
