import type { StateStore } from '../../src/state/sqlite/store.js';
import type { JobRecord, NewJob } from '../../src/state/types.js';

// Job rows written into a state.db by hand, as a test's starting point (a crash's traces, a month of
// billed jobs): plain SQL on the state's database, since locsync itself writes job rows only through
// its run ledger (src/sync/run/run-ledger.ts). No side effect of a transition happens here.

/** A pending job row, answered as recorded. */
export function insertJobRow(state: StateStore, job: NewJob): JobRecord {
  const now = new Date().toISOString();
  const info = state.db
    .prepare(
      `INSERT INTO jobs (mapping, rel_path, sha256, target_lang, fingerprint, base_fingerprint, output_path, status,
         attempts, source_characters, created_at, updated_at, run_id, request)
       VALUES (@mapping, @rel_path, @sha256, @target_lang, @fingerprint, @base_fingerprint, @output_path, 'pending',
         0, @source_characters, @now, @now, @run_id, @request)`,
    )
    .run({ source_characters: null, request: null, ...job, now });
  return state.getJob(Number(info.lastInsertRowid))!;
}

/** Some columns of a job row set as given. */
export function setJobRow(
  state: StateStore,
  id: number,
  fields: Partial<Omit<JobRecord, 'id' | 'created_at'>>,
): void {
  const cols = Object.keys(fields).filter((k) => (fields as Record<string, unknown>)[k] !== undefined);
  if (!cols.length) return;
  state.db.prepare(`UPDATE jobs SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run({
    ...fields,
    id,
  });
}

/**
 * What the service billed for a job's document, as the ledger records it when the service reports
 * the document translated (src/state/billed.ts): at `at` (ISO), sure unless `possibly`.
 */
export function insertChargeRow(
  state: StateStore,
  job: Pick<JobRecord, 'id' | 'document_id' | 'run_id'>,
  characters: number,
  at: string,
  possibly = false,
): void {
  state.db
    .prepare(
      'INSERT INTO charges (job_id, document_id, characters, sure, run_id, at) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(job.id, possibly ? null : job.document_id, characters, possibly ? 0 : 1, job.run_id, at);
}
