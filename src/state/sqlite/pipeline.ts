import os from 'node:os';
import type Database from 'better-sqlite3';
import { claimRefusal, type PipelineIdentity, type RecordedPipeline } from '../pipeline.js';

// The pipeline a SQLite state file belongs to (src/state/pipeline.ts): recorded by the first
// command that drives work on it, checked by every command that opens it.

/**
 * Refuse `file` when it belongs to another pipeline; record `ours` when it belongs to none yet and
 * `adopt` (a command that drives work: a state made before pipelines were recorded is adopted).
 */
export function claimSqlitePipeline(
  db: Database.Database,
  file: string,
  ours: PipelineIdentity,
  adopt: boolean,
): void {
  const recorded = db
    .prepare('SELECT name, manifest, host, adopted_at FROM pipeline WHERE only_row = 1')
    .get() as RecordedPipeline | undefined;
  if (recorded) {
    const refused = claimRefusal(
      file,
      recorded,
      ours,
      'state: another file (the default .locsync/state.db is one per folder)',
    );
    if (refused) throw refused;
    return;
  }
  if (!adopt) return;
  db.prepare(
    'INSERT OR IGNORE INTO pipeline (only_row, name, manifest, host, adopted_at) VALUES (1, ?, ?, ?, ?)',
  ).run(ours.name, ours.manifest, os.hostname(), new Date().toISOString());
}
