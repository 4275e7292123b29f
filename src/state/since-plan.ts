import type { ChargeStatement } from './billed.js';
import type { JobRecord } from './job-types.js';

// What another worker did with an output since this one planned it, the same query on both
// backends: the check a billed call makes right before it leaves (src/sync/run/billed-call.ts).
// Several workers plan the same outputs; the one that takes an output first may fail it (the checks
// quarantine it, the service refuses it), deliver it, or still be at work on it, and each of the
// others, coming to that output with its older plan, would buy it again. A job of the same output
// and unit (content, target, settings), of another run, written since the plan was made, says so.

/**
 * Named parameters (`:name`, as ../billed.ts spells them for both backends): the job about to be
 * sent, its run, and the moment the plan's view of the ledger was read (JobLedger.horizon), also
 * as `early`: earlier by the longest a backend's stamp of a write may precede its commit. A job
 * failed or at work stamped from `early` on may be one the plan did not see (on the safe side); a
 * job delivered counts from `since` only: one delivered just before the plan is what the plan knew
 * (`--retranslate all` buys it again on purpose), and on PostgreSQL the claim of the unit finds one
 * delivered meanwhile exactly (JobLedger.created). A job superseded by its source's change bought
 * nothing and ends nothing.
 */
const SINCE_PLAN_SQL = `SELECT id, status, error_kind, run_id, updated_at FROM jobs
  WHERE output_path = :output AND sha256 = :sha256 AND target_lang = :target AND fingerprint = :fingerprint
    AND id <> :job AND (run_id IS NULL OR run_id <> :run)
    AND updated_at >= :early AND (status <> 'done' OR updated_at >= :since)
    AND (error_kind IS NULL OR error_kind <> 'superseded')
  ORDER BY id DESC LIMIT 1`;

/**
 * The query for `job`, sent by run `runId`, planned at `since`; `marginMs`: how long before its
 * commit the backend stamps a write.
 */
export function sincePlanStatement(
  job: JobRecord,
  runId: number,
  since: string,
  marginMs: number,
): ChargeStatement {
  return {
    sql: SINCE_PLAN_SQL,
    params: {
      output: job.output_path,
      sha256: job.sha256,
      target: job.target_lang,
      fingerprint: job.fingerprint,
      job: job.id,
      run: runId,
      since,
      early: new Date(Date.parse(since) - marginMs).toISOString(),
    },
  };
}
