import fs from 'node:fs';
import { silentLogger } from '../log/logger.js';
import { loadManifest, type LoadedManifest } from '../manifest/load.js';
import { failedJobs, jobsInFlight, recentRuns } from '../report/queries.js';
import { pidAlive } from '../state/lock.js';
import { openState, type JobRecord, type RunRecord } from '../state/store.js';
import type { SyncPlan } from '../sync/engine.js';
import { EXIT } from '../util/errors.js';
import { formatDuration } from './progress.js';

interface StatusOptions {
  config: string;
  json?: boolean;
  runs: string;
  scan: boolean;
}

/** What to do about a failed job, by the kind of its last error. */
export function adviceFor(kind: string | null, m: LoadedManifest, attempts: number, cfg: string): string {
  const rerun = `rerun \`locsync sync -c ${cfg}\``;
  switch (kind) {
    case 'quota':
      return `the account's character quota is used up: raise your plan's character limit or wait for the next billing period; then ${rerun}`;
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
    case 'lost-download':
      return `the translated document was no longer on the service; the next sync uploads it again`;
    default:
      return rerun;
  }
}

function ago(iso: string | null, now: number): string {
  return iso ? formatDuration(now - Date.parse(iso)) : '?';
}

/** A run left 'running' by a process that is gone crashed (the next run records it so too). */
function runStatus(r: RunRecord): RunRecord['status'] {
  return r.status === 'running' && !pidAlive(r.pid) ? 'crashed' : r.status;
}

function runLine(r: RunRecord, now: number): string {
  const dur = r.finished_at
    ? formatDuration(Date.parse(r.finished_at) - Date.parse(r.started_at))
    : 'running';
  const c = r.counts ?? {};
  const counts = ['translated', 'resumed', 'reused', 'unchanged', 'stale', 'failed']
    .filter((k) => c[k])
    .map((k) => `${k} ${c[k]}`)
    .join(', ');
  return (
    `#${r.id} ${r.command} ${r.started_at} (${ago(r.started_at, now)} ago), ${dur}: ${r.status === 'running' ? `running (pid ${r.pid})` : r.status}` +
    (counts ? `; ${counts}` : '') +
    `; billed ${r.billed_characters.toLocaleString('en-US')}`
  );
}

function inFlightState(j: JobRecord): string {
  if (j.document_id) return `uploaded as ${j.document_id}, waiting on the service`;
  return 'upload started, answer not recorded (crash or in progress)';
}

export interface StatusData {
  state: string;
  runs: RunRecord[];
  inFlight: Array<{
    mapping: string;
    file: string;
    target: string;
    document_id: string | null;
    state: string;
    since: string | null;
    waited_seconds: number | null;
  }>;
  failures: Array<{
    mapping: string;
    file: string;
    target: string;
    document_id: string | null;
    kind: string | null;
    message: string | null;
    attempts: number;
    gave_up: boolean;
    advice: string;
  }>;
  stale: SyncPlan['stale'] | null;
  gaveUp: SyncPlan['gaveUp'] | null;
  skipped: SyncPlan['skipped'] | null;
}

async function collect(opts: StatusOptions, loaded: LoadedManifest, now: number): Promise<StatusData> {
  const state = openState(loaded.statePath);
  try {
    const runs = recentRuns(state, Math.max(1, Number(opts.runs) || 5)).map((r) => ({
      ...r,
      status: runStatus(r),
    }));
    const inFlight = jobsInFlight(state).map((j) => {
      const since = j.upload_started_at ?? j.updated_at;
      return {
        mapping: j.mapping,
        file: j.rel_path,
        target: j.target_lang,
        document_id: j.document_id,
        state: inFlightState(j),
        since,
        waited_seconds: since ? Math.round((now - Date.parse(since)) / 1000) : null,
      };
    });
    const failures = failedJobs(state).map((j) => ({
      mapping: j.mapping,
      file: j.rel_path,
      target: j.target_lang,
      document_id: j.document_id,
      kind: j.error_kind,
      message: j.error,
      attempts: j.attempts,
      gave_up: j.status === 'failed' && j.attempts >= loaded.manifest.max_attempts,
      advice: adviceFor(j.error_kind, loaded, j.attempts, opts.config),
    }));
    let plan: SyncPlan | undefined;
    if (opts.scan) {
      // The sync engine (session, style reconciler, queues) only for the scan: not with --no-scan.
      const { planSync } = await import('../sync/engine.js');
      plan = await planSync({ loaded, state, logger: silentLogger() });
    }
    return {
      state: loaded.statePath,
      runs,
      inFlight,
      failures,
      stale: plan?.stale ?? null,
      gaveUp: plan?.gaveUp ?? null,
      skipped: plan?.skipped ?? null,
    };
  } finally {
    state.close();
  }
}

function formatStatus(d: StatusData, cfg: string, now: number): string {
  const out: string[] = [];
  out.push(d.runs.length ? 'Last runs:' : `No runs yet: \`locsync sync -c ${cfg}\` starts the first.`);
  for (const r of d.runs) out.push(`  ${runLine(r, now)}`);
  out.push('');
  out.push(d.inFlight.length ? `In flight (${d.inFlight.length}):` : 'In flight: none');
  for (const j of d.inFlight)
    out.push(
      `  ${j.mapping}/${j.file} -> ${j.target}: ${j.state}, for ${j.waited_seconds === null ? '?' : formatDuration(j.waited_seconds * 1000)}`,
    );
  if (d.inFlight.length)
    out.push(`  (the next \`locsync sync -c ${cfg}\` collects them; nothing recorded is uploaded again)`);
  out.push('');
  out.push(d.failures.length ? `Failures (${d.failures.length}):` : 'Failures: none');
  for (const f of d.failures) {
    out.push(
      `  ${f.mapping}/${f.file} -> ${f.target}${f.gave_up ? ' (gave up)' : ''}: ${f.kind ?? 'error'}: ${f.message ?? ''}`,
    );
    out.push(`    what to do: ${f.advice}`);
  }
  if (d.stale !== null) {
    out.push('');
    out.push(
      d.stale.length
        ? `Stale outputs (${d.stale.length}, made with an older version of their style list; \`locsync sync --retranslate stale\` re-translates them, billed):`
        : 'Stale outputs: none (style list edits not yet applied show in `locsync plan`)',
    );
    for (const s of d.stale.slice(0, 50)) out.push(`  ${s.output}`);
    if (d.stale.length > 50) out.push(`  ... and ${d.stale.length - 50} more (--json lists all)`);
  }
  if (d.gaveUp?.length) {
    out.push('');
    out.push(
      `Given up after max_attempts failures (${d.gaveUp.length}; a changed source file is tried again):`,
    );
    for (const g of d.gaveUp) out.push(`  ${g.file} -> ${g.target} (${g.output})`);
  }
  if (d.skipped?.length) {
    out.push('');
    out.push(`Skipped (${d.skipped.length}):`);
    for (const s of d.skipped) out.push(`  ${s.mapping}/${s.file}: ${s.message}`);
  }
  return out.join('\n');
}

export async function statusAction(opts: StatusOptions): Promise<void> {
  const loaded = await loadManifest(opts.config);
  const now = Date.now();
  if (!fs.existsSync(loaded.statePath)) {
    if (opts.json)
      process.stdout.write(JSON.stringify({ state: loaded.statePath, runs: [] }, null, 2) + '\n');
    else
      process.stdout.write(
        `No state yet at ${loaded.statePath}: \`locsync sync -c ${opts.config}\` starts the first run.\n`,
      );
    process.exitCode = EXIT.ok;
    return;
  }
  const data = await collect(opts, loaded, now);
  if (opts.json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
  else process.stdout.write(formatStatus(data, opts.config, now) + '\n');
  const last = data.runs[0]?.status;
  process.exitCode = data.failures.length || last === 'failed' || last === 'crashed' ? EXIT.failed : EXIT.ok;
}
