import type { ChargeStatement } from './billed.js';
import type { DeliveredOutput } from './job-types.js';

// Outputs recorded as delivered in bulk (JobLedger.deliveredInBulk), the same rows on both
// backends: what a run that delivered them would have left — each source file's record, and a done
// job of its output with what it wrote — without a run, an upload or a bill. The benchmarks seed
// states of 100,000s of files through it (bench/lib/bulk-seed.ts); a state seeded so is one a no-op
// sync accepts as it is.

/** Rows per transaction a backend writes at most (a million outputs are not one transaction). */
export const DELIVERED_BATCH = 10_000;

const INSERT_DONE = `INSERT INTO jobs (mapping, rel_path, sha256, target_lang, fingerprint, base_fingerprint,
    output_path, status, attempts, billed_characters, source_characters, created_at, updated_at,
    finished_at, run_id, request, output_sha256, output_size, output_mtime_ms)
  VALUES (:mapping, :rel_path, :sha256, :target_lang, :fingerprint, :base_fingerprint, :output_path,
    'done', 0, 0, :source_characters, :at, :at, :at, :run_id, :request, :output_sha256, :output_size,
    :output_mtime_ms)`;

/** The done job's row of `d`, stamped `at` (ISO). */
export function deliveredJobStatement(d: DeliveredOutput, at: string): ChargeStatement {
  const j = d.job;
  return {
    sql: INSERT_DONE,
    params: {
      mapping: j.mapping,
      rel_path: j.rel_path,
      sha256: j.sha256,
      target_lang: j.target_lang,
      fingerprint: j.fingerprint,
      base_fingerprint: j.base_fingerprint,
      output_path: j.output_path,
      source_characters: j.source_characters ?? null,
      at,
      run_id: j.run_id,
      request: j.request ?? null,
      output_sha256: d.written.sha256,
      output_size: d.written.size,
      output_mtime_ms: d.written.mtimeMs,
    },
  };
}
