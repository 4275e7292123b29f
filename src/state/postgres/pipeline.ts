import os from 'node:os';
import type pg from 'pg';
import { claimRefusal, type PipelineIdentity, type RecordedPipeline } from '../pipeline.js';
import { displayUrl, schemaNameFor, withSchema } from './url.js';

// The pipeline a PostgreSQL state belongs to. A state is one schema of a database (the URL's
// search_path, else the database's default schema): one pipeline's tables, untouched by every
// other pipeline's queries. The schema records its pipeline (locsync_pipeline); a manifest of
// another name on the same schema is refused, naming both, with the URL of a schema of its own.

/**
 * Refuse the state when it belongs to another pipeline; record `ours` when it belongs to none yet
 * and `adopt` (a command that drives work or migrates: a state made before pipelines were
 * recorded is adopted under the manifest's name). Readers on a state with no schema yet pass.
 */
export async function claimPgPipeline(
  db: pg.Pool | pg.PoolClient,
  url: string,
  ours: PipelineIdentity,
  adopt: boolean,
): Promise<void> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('locsync_pipeline')::text AS t`);
  if (!exists.rows[0]?.t) return;
  const read = () =>
    db.query<RecordedPipeline>(
      `SELECT name, manifest, host, adopted_at FROM locsync_pipeline WHERE only_row`,
    );
  let recorded = (await read()).rows[0];
  if (!recorded && adopt) {
    await db.query(
      `INSERT INTO locsync_pipeline (name, manifest, host) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [ours.name, ours.manifest, os.hostname()],
    );
    // Another manifest may have adopted it at the same moment: what is recorded is what counts.
    recorded = (await read()).rows[0];
  }
  const refused =
    recorded &&
    claimRefusal(
      displayUrl(url),
      recorded,
      ours,
      `a schema of its own on this database (made on first use), state: ${withSchema(url, schemaNameFor(ours.name))}; or a database of its own`,
    );
  if (refused) throw refused;
  // A worker records whether its pipeline shares its translations (reuse: across_pipelines): other
  // pipelines read this schema only while it says so (src/state/postgres/reuse-across.ts).
  if (recorded && adopt)
    await db.query(`UPDATE locsync_pipeline SET reuse_across = $1 WHERE only_row AND reuse_across <> $1`, [
      ours.reuseAcross === true,
    ]);
}
