import pg from 'pg';
import { preferred } from '../memory-preference.js';
import { pgStatement } from '../billed.js';
import { leverageRead, leverageStatement, type JobLeverageCounts } from '../leverage-ledger.js';
import type { LeverageRow, LeverageScope } from '../leverage-ledger.js';
import type { Recalled } from '../memory-types.js';
import type { AnsweredShare } from '../segment-types.js';
import type { NewTextRequest, SegmentMemory, SegmentMemoryRow, TextRequestRecord } from '../segment-types.js';
import { inTransaction } from './tx.js';

// The segment memory on PostgreSQL (see SegmentMemory), in the pipeline's own schema: translated
// segments by key, and the text requests recorded before they are sent.

const PUT_SQL = `INSERT INTO segment_memory (key, origin, source, source_lang, target_lang, settings, translation, run_id, document)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[])
  ON CONFLICT (key, origin) DO UPDATE SET translation = excluded.translation, run_id = excluded.run_id,
    created_at = now(), document = coalesce(excluded.document, segment_memory.document)`;

function putValues(rows: readonly SegmentMemoryRow[]): unknown[] {
  return [
    rows.map((r) => r.key),
    rows.map((r) => r.origin),
    rows.map((r) => r.source),
    rows.map((r) => r.source_lang),
    rows.map((r) => r.target_lang),
    rows.map((r) => r.settings),
    rows.map((r) => r.translation),
    rows.map((r) => r.run_id),
    rows.map((r) => r.document ?? null),
  ];
}

/** Distinct rows by (key, origin): one INSERT must not name a row twice (ON CONFLICT refuses it). */
function distinct(rows: readonly SegmentMemoryRow[]): SegmentMemoryRow[] {
  const by = new Map<string, SegmentMemoryRow>();
  for (const r of rows) by.set(`${r.origin}\0${r.key}`, r);
  return [...by.values()];
}

export class PgSegmentMemory implements SegmentMemory {
  /**
   * `shared`: the schemas of the other pipelines this one shares translations with (manifest
   * `reuse: across_pipelines` on both sides, ./reuse-across.ts). Their memories are read, never
   * written, for the segments this pipeline's own memory does not hold.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly shared?: () => Promise<string[]>,
  ) {}

  async lookup(keys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const [k, r] of await this.recall(keys)) out.set(k, r.translation);
    return out;
  }

  async recall(keys: readonly string[]): Promise<Map<string, Recalled>> {
    const out = new Map<string, Recalled>();
    if (keys.length === 0) return out;
    const unique = [...new Set(keys)];
    for (const row of await this.rowsOf('segment_memory', unique))
      out.set(row.key, preferred(out.get(row.key), row));
    if (!this.shared) return out;
    // A pipeline's own memory first; what it lacks, from the pipelines it shares with.
    let missing = unique.filter((k) => !out.has(k));
    for (const schema of missing.length > 0 ? await this.shared() : []) {
      const found = new Map<string, Recalled>();
      const rows = await this.rowsOf(`${pg.escapeIdentifier(schema)}.segment_memory`, missing).catch(
        () => [], // a schema this role may not read shares nothing with it
      );
      // Another pipeline's run ids are not this one's.
      for (const row of rows) found.set(row.key, preferred(found.get(row.key), { ...row, run_id: null }));
      for (const [k, r] of found) out.set(k, r);
      missing = missing.filter((k) => !out.has(k));
      if (missing.length === 0) break;
    }
    return out;
  }

  private async rowsOf(table: string, keys: readonly string[]): Promise<Array<Recalled & { key: string }>> {
    const r = await this.pool.query<Recalled & { key: string }>(
      `SELECT key, translation, origin, run_id FROM ${table} WHERE key = ANY($1::text[])`,
      [keys],
    );
    return r.rows;
  }

  async put(rows: readonly SegmentMemoryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(PUT_SQL, putValues(distinct(rows)));
  }

  async forgetAnswers(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query(`DELETE FROM segment_memory WHERE origin = 'service' AND key = ANY($1::text[])`, [
      [...new Set(keys)],
    ]);
  }

  async textRequestsSent(shares: readonly NewTextRequest[]): Promise<number[]> {
    if (shares.length === 0) return [];
    // One statement, one transaction. Identity values are drawn as the rows are inserted, in the
    // order of the shares: the returned ids sorted are the shares' in order.
    const res = await this.pool.query<{ id: string }>(
      `INSERT INTO text_requests (job_id, run_id, texts, characters, request, state)
       SELECT job_id, run_id, texts, characters, request, 'sent'
       FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[], $5::text[])
         WITH ORDINALITY AS s(job_id, run_id, texts, characters, request, n)
       ORDER BY n RETURNING id`,
      [
        shares.map((r) => r.jobId),
        shares.map((r) => r.runId),
        shares.map((r) => r.texts),
        shares.map((r) => r.characters),
        shares.map((r) => r.request),
      ],
    );
    return res.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  async textRequestsAnswered(shares: readonly AnsweredShare[]): Promise<void> {
    if (shares.length === 0) return;
    const rows = distinct(shares.flatMap((s) => s.rows));
    await inTransaction(this.pool, async (client) => {
      if (rows.length > 0) await client.query(PUT_SQL, putValues(rows));
      await client.query(
        `UPDATE text_requests SET state = 'answered', answered_at = now() WHERE id = ANY($1::bigint[])`,
        [shares.map((s) => s.id)],
      );
    });
  }

  async textRequestsLost(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(`UPDATE text_requests SET state = 'lost' WHERE id = ANY($1::bigint[])`, [ids]);
  }

  async textRequestsNotSent(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query('DELETE FROM text_requests WHERE id = ANY($1::bigint[])', [ids]);
  }

  async unansweredOf(jobId: number): Promise<TextRequestRecord[]> {
    const r = await this.pool.query<TextRequestRecord>(
      `SELECT id::int AS id, job_id::int AS job_id, run_id::int AS run_id, texts, characters::int AS characters,
         state, sent_at::text AS sent_at, answered_at::text AS answered_at
       FROM text_requests WHERE job_id = $1 AND state = 'sent' ORDER BY id`,
      [jobId],
    );
    return r.rows;
  }

  async billedOf(jobId: number): Promise<number> {
    const r = await this.pool.query<{ n: string | null }>(
      'SELECT SUM(characters) AS n FROM text_requests WHERE job_id = $1',
      [jobId],
    );
    return Number(r.rows[0]?.n ?? 0);
  }

  async recordLeverage(jobId: number, runId: number, counts: JobLeverageCounts): Promise<void> {
    const st = pgStatement(leverageStatement(jobId, runId, counts));
    await this.pool.query(st.sql, st.values);
  }

  async leverageRows(scope: LeverageScope): Promise<LeverageRow[]> {
    const read = leverageRead(scope, 'postgres');
    return (await this.pool.query<LeverageRow>(read.sql, read.values)).rows;
  }
}
