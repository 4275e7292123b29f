import type { LoadedManifest } from '../manifest/load.js';
import type { RunRecord, RunStopReason } from '../state/types.js';
import { notRetriedAdvice } from '../sync/refused-for-good.js';

// What an operator should do about a failed job, by the kind of its last error: `locsync status`,
// its --json and the status page say the same.

export function adviceFor(
  kind: string | null,
  m: LoadedManifest,
  attempts: number,
  cfg: string,
  job?: { error: string | null; mapping: string; target: string },
): string {
  const rerun = `rerun \`locsync sync -c ${cfg}\``;
  switch (kind) {
    case 'needs-fix':
      return notRetriedAdvice(job?.error, job ?? { mapping: '?', target: '?' });
    case 'quota':
      return `the account's character quota is used up: raise your plan's character limit or wait for the next billing period; then ${rerun}`;
    case 'budget':
      return `a budget cap was reached during the run, so this was not uploaded: raise the cap (budget: in the manifest) or pass --max-billed N; then ${rerun}`;
    case 'auth':
      return `the service refused the API key: check $${m.manifest.service.key_env} (and service.plan in the manifest); then ${rerun}`;
    case 'job-error':
      return attempts >= m.manifest.max_attempts
        ? `the service could not translate it (${attempts} attempt(s)): check that the file opens and is a supported format; a changed file is tried again (or raise max_attempts)`
        : `the service could not translate it (attempt ${attempts} of ${m.manifest.max_attempts}): check that the file opens; the next sync tries again`;
    case 'maybe-accepted':
      return `the upload broke off after the document was sent, so it may have been billed; the next sync uploads it again (${rerun})`;
    case 'rejected':
      return `the service refused the document (too large, or invalid): fix the file or exclude it in the manifest`;
    case 'transient':
      return `the service was unavailable or busy; nothing is lost: ${rerun} to resume`;
    case 'output':
      return `writing the output failed: check the output folder's permissions and free disk space; then ${rerun}`;
    case 'stopped':
      return `the run was stopped before this finished: ${rerun} to resume (nothing uploaded is paid twice)`;
    case 'qa-failed':
      return `the service's translation failed an output check (docs/qa.md) and was not delivered (kept in the quarantine folder named above; the previous output stays); it is not uploaded again by itself: look at the source, then \`locsync sync -c ${cfg} --retry-failed-qa\` buys it again (billed)`;
    case 'lost-download':
      return `the translated document was no longer on the service; the next sync uploads it again`;
    default:
      return rerun;
  }
}

/** How the last run ended, and what to do about it (status, its --json, /healthz, the status page). */
export interface RunOutcomeView {
  run: number;
  command: string;
  status: RunRecord['status'];
  reason: RunStopReason | null;
  /** One sentence: what happened and what to do (null when the run completed). */
  advice: string | null;
}

/** What to do after a run that ended `status` for `reason`. */
export function outcomeAdvice(
  status: RunRecord['status'],
  reason: RunStopReason | null,
  m: LoadedManifest,
  cfg: string,
): string | null {
  const again = `\`locsync sync -c ${cfg}\``;
  if (status === 'ok' || status === 'running') return null;
  if (status === 'crashed')
    return `the process ended without finishing (killed, out of memory, power): run ${again} to resume; recorded uploads are collected, not paid again`;
  if (status === 'stopped')
    return `the watch was stopped (SIGINT/SIGTERM, as a watch ends): \`locsync watch -c ${cfg}\` starts it again; documents it left at the service are collected, not paid again`;
  if (status === 'interrupted' || reason === 'signal')
    return `interrupted by a signal: run ${again} to resume; recorded uploads are collected, not paid again`;
  switch (reason) {
    case 'source-missing':
      return `a mapping's source folder is not there (or empty where files were: a share not mounted?): fix source: or mount the share, then run ${again}; set allow_missing: true on a mapping whose folder may be absent`;
    case 'documents-failed':
      return 'some documents failed: see Failures for what to do about each; the next run retries what can be retried';
    case 'drift':
      return `a style list or glossary was changed on the service by someone else: \`locsync plan -c ${cfg}\` shows what; then run with --drift overwrite (the service takes the YAML) or --drift adopt (the YAML takes the service's version), or set its drift policy`;
    case 'auth':
      return `the service refused the API key: check $${m.manifest.service.key_env} (and service.plan); then run ${again}`;
    case 'quota':
      return `the account's character quota is used up: raise the plan's character limit or wait for the next billing period; then run ${again}`;
    case 'budget':
      return `a budget cap stopped the uploads (before the first one, or when the bills reached it): \`locsync plan -c ${cfg}\` shows what is left to bill; raise budget.per_run / budget.per_month, or allow this run with --max-billed N`;
    case 'lock':
      return 'another locsync process (watch, or a sync) held the state: let it do the work, or stop it before running sync';
    case 'config':
      return `the manifest or the command's options are wrong: \`locsync validate -c ${cfg}\` names the problem`;
    default:
      return `an unexpected error: see the run's log (LOCSYNC_DEBUG=1 prints the stack); then run ${again}`;
  }
}

/**
 * A watch stopped by a signal with nothing left unfinished: the normal end of a watch (README),
 * nothing to do about it. One that left documents at the service says how they are collected.
 */
export function isQuietStop(r: Pick<RunRecord, 'status' | 'counts'>): boolean {
  return r.status === 'stopped' && !r.counts?.left;
}

/** The last finished run of `runs` (newest first; one still running says nothing yet) as status shows it. */
export function lastOutcome(runs: RunRecord[], m: LoadedManifest, cfg: string): RunOutcomeView | null {
  const r = runs.find((x) => x.status !== 'running' && x.status !== 'skipped');
  if (!r) return null;
  return {
    run: r.id,
    command: r.command,
    status: r.status,
    reason: r.reason ?? null,
    advice: isQuietStop(r) ? null : outcomeAdvice(r.status, r.reason ?? null, m, cfg),
  };
}
