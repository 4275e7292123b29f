import path from 'node:path';
import pg from 'pg';
import type { ReuseAcrossPipelines, SharedTranslation } from '../shared-types.js';

// Reuse across pipelines (manifest `reuse: across_pipelines`, docs/postgres.md). Each pipeline's
// state is a schema of its own; a pipeline that opted in records so in its schema
// (locsync_pipeline.reuse_across, written by its workers). Another opted-in pipeline on the same
// database reads the done jobs of those schemas only — never writing there — and copies an output
// that still holds what its job recorded as written (jobs.output_sha256) instead of uploading the
// same content again.

/** The other pipelines' schemas are listed again after this long (a pipeline may opt in or out). */
const SCHEMAS_TTL_MS = 60_000;

interface OptedIn {
  schema: string;
  pipeline: string;
  /** Folder of the manifest the pipeline recorded: its output paths are relative to it. */
  dir: string;
}

export class PgReuseAcrossPipelines implements ReuseAcrossPipelines {
  private others: { at: number; list: Promise<OptedIn[]> } | undefined;

  constructor(
    private readonly pool: pg.Pool,
    /** This pipeline's name (its own schema is never read as another's). */
    private readonly pipeline: string,
  ) {}

  /** Schemas of this database holding another pipeline's state that opted in. */
  private optedIn(): Promise<OptedIn[]> {
    if (!this.others || Date.now() - this.others.at > SCHEMAS_TTL_MS)
      this.others = { at: Date.now(), list: this.listOptedIn() };
    return this.others.list;
  }

  private async listOptedIn(): Promise<OptedIn[]> {
    // Schemas whose state is recent enough to say (it has reused_across), other than ours.
    const schemas = await this.pool.query<{ schema: string }>(
      `SELECT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = 'reused_across' AND c.relkind = 'r' AND n.nspname <> current_schema()`,
    );
    const list: OptedIn[] = [];
    for (const { schema } of schemas.rows) {
      const r = await this.pool
        .query<{ name: string; manifest: string }>(
          `SELECT name, manifest FROM ${pg.escapeIdentifier(schema)}.locsync_pipeline WHERE only_row AND reuse_across`,
        )
        .catch(() => ({ rows: [] })); // a schema this role may not read shares nothing with it
      const row = r.rows[0];
      if (row && row.name !== this.pipeline)
        list.push({ schema, pipeline: row.name, dir: path.dirname(row.manifest) });
    }
    return list;
  }

  /** The schemas of the other opted-in pipelines (their segment memories are shared too). */
  async schemas(): Promise<string[]> {
    return (await this.optedIn()).map((o) => o.schema);
  }

  async translationsOf(unit: {
    sha256: string;
    fingerprint: string;
    target_lang: string;
  }): Promise<SharedTranslation[]> {
    const found: SharedTranslation[] = [];
    for (const o of await this.optedIn()) {
      const s = pg.escapeIdentifier(o.schema);
      // The latest done job of its output path (not re-translated since), with what it wrote there.
      const r = await this.pool
        .query<{ job_id: string; output_path: string; output_sha256: string }>(
          `SELECT j.id AS job_id, j.output_path, j.output_sha256 FROM ${s}.jobs j
           WHERE j.sha256 = $1 AND j.fingerprint = $2 AND j.target_lang = $3 AND j.status = 'done'
             AND j.output_sha256 IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM ${s}.jobs k
                             WHERE k.output_path = j.output_path AND k.status = 'done' AND k.id > j.id)
           ORDER BY j.id DESC LIMIT 4`,
          [unit.sha256, unit.fingerprint, unit.target_lang],
        )
        .catch(() => ({ rows: [] }));
      for (const row of r.rows)
        found.push({
          pipeline: o.pipeline,
          jobId: Number(row.job_id),
          path: path.resolve(o.dir, row.output_path),
          outputSha256: row.output_sha256,
        });
    }
    return found;
  }

  async copiedFrom(jobId: number, from: { pipeline: string; jobId: number }): Promise<void> {
    await this.pool.query(
      `INSERT INTO reused_across (job_id, from_pipeline, from_job_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [jobId, from.pipeline, from.jobId],
    );
  }
}
