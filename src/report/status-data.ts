import type { DocumentWording } from '../xliff/wording.js';
import type { EditedOutput } from '../sync/edited-outputs.js';
import type { LoadedManifest } from '../manifest/load.js';
import type { JobRecord, RunRecord } from '../state/types.js';
import type { RunState, SyncPlan } from '../sync/engine.js';
import { adviceFor, lastOutcome, type RunOutcomeView } from './advice.js';
import { languageProgress, type LanguageProgress } from './language-progress.js';
import { monthStart } from '../billing/ledger.js';
import type { Spending } from './format-spending.js';
import type { InFlightJob, RepeatedUpload } from './queries.js';
import type { StatusSource } from './status-source.js';
import { listSpooled, spoolDirOf } from '../util/spool.js';
import type { QaOutputs } from './qa-outputs.js';
import type { StringKeysPending } from './string-keys.js';

// What `locsync status` and the status page show, read from an open state (no call to the
// service): the last runs, jobs in flight, failures with what to do, and, from a scan of the
// source folders, stale outputs and the progress per language.

export interface StatusData {
  state: string;
  /** The documents with segments reviewed by a person, counted by whose wording (src/xliff/wording.ts). */
  wording?: DocumentWording[];
  /** Outputs edited by people, conflicts among them (src/sync/edited-outputs.ts). */
  edited?: EditedOutput[];
  /** Outputs the output checks failed or flagged (./qa-outputs.ts, docs/qa.md). */
  qa?: QaOutputs;
  /** How the last run ended and what to do (null before the first run). */
  last_outcome: RunOutcomeView | null;
  /** The last run that ran (not skipped for the lock), also when skipped runs came after more than `runs` holds. */
  last_run: RunRecord | null;
  /** The last runs, skipped ones included. */
  runs: RunRecord[];
  inFlight: Array<{
    mapping: string;
    file: string;
    target: string;
    document_id: string | null;
    /** A segment job's text requests sent with no recorded answer: the only ones possibly billed. */
    unanswered_requests?: number;
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
  /** What this calendar month (UTC) billed, against the monthly budget and in money when set. */
  spending?: Spending;
  possibly_billed_twice?: RepeatedUpload[];
  /** Per mapping and target language: up to date, stale, pending, failed (null without a scan). */
  progress?: LanguageProgress[] | null;
  gaveUp: SyncPlan['gaveUp'] | null;
  /** String files' keys missing or outdated per target language (null without a scan). */
  string_keys?: StringKeysPending[] | null;
  skipped: SyncPlan['skipped'] | null;
  /** Translations downloaded but not yet put in place: the next run delivers them (no new upload). */
  spooled: {
    folder: string;
    /** `holder`: in the spool of that worker (PostgreSQL), not in this machine's folder. */
    documents: Array<{ document_id: string; output: string | null; holder?: string }>;
  };
}

/** Whether a job's recorded request sends segments (method: segments) rather than a document. */
function sendsSegments(j: JobRecord): boolean {
  try {
    return !!(JSON.parse(j.request ?? 'null') as { segments?: unknown } | null)?.segments;
  } catch {
    return false;
  }
}

function inFlightState(j: InFlightJob): string {
  if (j.document_id) return `uploaded as ${j.document_id}, waiting on the service`;
  // Only a text request recorded as sent with no answer may be owed; the job row cannot tell.
  if (sendsSegments(j))
    return j.unanswered_requests > 0
      ? `sending segments: ${plural(j.unanswered_requests, 'text request')} sent with no recorded answer (in progress, or possibly billed if the run was killed); ${j.answered_requests} answered`
      : `sending segments: ${plural(j.answered_requests, 'text request')} answered, none waiting for an answer (nothing possibly billed)`;
  return 'upload started, answer not recorded (crash or in progress)';
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** A job in flight as status shows it. */
export function inFlightRow(j: InFlightJob, now: number): StatusData['inFlight'][number] {
  const since = j.upload_started_at ?? j.updated_at;
  return {
    mapping: j.mapping,
    file: j.rel_path,
    target: j.target_lang,
    document_id: j.document_id,
    ...(sendsSegments(j) ? { unanswered_requests: j.unanswered_requests } : {}),
    state: inFlightState(j),
    since,
    waited_seconds: since ? Math.round((now - Date.parse(since)) / 1000) : null,
  };
}

/** A failed job as status shows it, with what to do. */
export function failureRow(
  j: JobRecord,
  loaded: LoadedManifest,
  cfg: string,
): StatusData['failures'][number] {
  return {
    mapping: j.mapping,
    file: j.rel_path,
    target: j.target_lang,
    document_id: j.document_id,
    kind: j.error_kind,
    message: j.error,
    attempts: j.attempts,
    gave_up:
      j.status === 'failed' && (j.attempts >= loaded.manifest.max_attempts || j.error_kind === 'needs-fix'),
    advice: adviceFor(j.error_kind, loaded, j.attempts, cfg, {
      error: j.error,
      mapping: j.mapping,
      target: j.target_lang,
    }),
  };
}

/** The scan's answer: the plan and how many supported files each mapping has. */
export interface ScanResult {
  plan: SyncPlan;
  files: Map<string, number>;
  /** String files' keys the next sync sends, per target language. */
  stringKeys: StringKeysPending[];
}

/** Scan the source folders as `plan` does (nothing written): stale outputs and progress. */
export async function scanForStatus(loaded: LoadedManifest, state: RunState): Promise<ScanResult> {
  // The sync engine (session, style reconciler, queues) is loaded only for the scan.
  const [{ makePlan }, { groupPlan }, { createSyncEvents }, { silentLogger }, { pendingStringKeys }] =
    await Promise.all([
      import('../sync/engine.js'),
      import('../sync/plan/view.js'),
      import('../sync/events.js'),
      import('../log/logger.js'),
      import('./string-keys.js'),
    ]);
  const events = createSyncEvents();
  const files = new Map<string, number>();
  events.on('scan:done', (e) => files.set(e.mapping, e.files));
  const { plan } = await makePlan({ loaded, state, logger: silentLogger(), events });
  return { plan: groupPlan(plan), files, stringKeys: await pendingStringKeys(loaded, state, plan) };
}

export async function collectStatus(
  source: StatusSource,
  loaded: LoadedManifest,
  opts: {
    runs: number;
    config: string;
    now: number;
    scan?: ScanResult;
    /** The output checks' verdicts: listed, and counted apart in the progress per language. */
    qa?: QaOutputs;
  },
): Promise<StatusData> {
  const { now, scan } = opts;
  const [runs, ran, open, failed, billed, repeated] = await Promise.all([
    source.recentRuns(Math.max(1, opts.runs)),
    source.lastRanRuns(),
    source.jobsInFlight(),
    source.failedJobs(),
    source.billedSince(monthStart(new Date(now))),
    source.repeatedUploads(),
  ]);
  const progress = scan
    ? languageProgress(
        scan.plan,
        loaded.manifest.mappings.map((m) => ({
          name: m.name,
          targets: m.targets.map((t) => t.lang),
          files: scan.files.get(m.name) ?? 0,
        })),
        opts.qa?.flagged ?? [],
      )
    : null;
  return {
    state: source.location,
    last_outcome: lastOutcome(ran, loaded, opts.config),
    last_run: ran[0] ?? null,
    runs,
    inFlight: open.map((j) => inFlightRow(j, now)),
    failures: failed.map((j) => failureRow(j, loaded, opts.config)),
    stale: scan?.plan.stale ?? null,
    spending: {
      month: new Date(now).toISOString().slice(0, 7),
      billed_characters: billed,
      ...(loaded.manifest.budget?.per_month !== undefined
        ? { budget_per_month: loaded.manifest.budget.per_month }
        : {}),
      ...(loaded.manifest.billing ? { billing: loaded.manifest.billing } : {}),
    },
    possibly_billed_twice: repeated,
    ...(opts.qa ? { qa: opts.qa } : {}),
    progress,
    gaveUp: scan?.plan.gaveUp ?? null,
    string_keys: scan?.stringKeys ?? null,
    skipped: scan?.plan.skipped ?? null,
    // This machine's spool, and what open jobs record in other workers' spools (PostgreSQL).
    spooled: spooledDocuments(loaded.statePath, [...open, ...failed]),
  };
}

/** The last run that ran when more skipped runs came after it than `runs` holds (shown after them). */
export function lastRunOutOfView(d: Pick<StatusData, 'runs' | 'last_run'>): RunRecord | undefined {
  const last = d.last_run;
  return last && !d.runs.some((r) => r.id === last.id) ? last : undefined;
}

/**
 * The translations waiting in this machine's spool, with the outputs their open jobs are for, and
 * those the open jobs record in another worker's spool (PostgreSQL: another machine's).
 */
export function spooledDocuments(
  statePath: string,
  /** The open jobs (a spooled document's output is the one its job is for). */
  openJobs: ReadonlyArray<
    { document_id: string | null; output_path: string } & Partial<
      Pick<JobRecord, 'spool_path' | 'spool_holder'>
    >
  >,
): StatusData['spooled'] {
  const folder = spoolDirOf(statePath);
  const ids = listSpooled(folder);
  const outputs = new Map(openJobs.map((j) => [j.document_id, j.output_path] as const));
  const here = new Set(ids);
  const elsewhere = new Map<string, { document_id: string; output: string; holder: string }>();
  for (const j of openJobs)
    if (j.document_id && j.spool_path && j.spool_holder && !here.has(j.document_id))
      elsewhere.set(j.document_id, {
        document_id: j.document_id,
        output: j.output_path,
        holder: j.spool_holder,
      });
  return {
    folder,
    documents: [
      ...ids.map((id) => ({ document_id: id, output: outputs.get(id) ?? null })),
      ...elsewhere.values(),
    ],
  };
}
