import { printable } from '../log/printable.js';
import { formatCount, formatCounted, formatDuration } from '../util/format.js';
import { formatBilledCalls } from '../billing/billed-calls.js';
import { costOf, formatBill, type BillingRate } from '../billing/money.js';
import { pricedLeverage, type LeverageByTarget } from '../billing/leverage.js';
import { leverageLines } from '../billing/leverage-lines.js';
import { staleAdvice } from './plan/retranslate.js';
import { notRetriedAdvice } from './refused-for-good.js';

// What a sync run did, for the closing summary, `--json`, the runs table and the report command.

/** Why a (file, target) failed (in the summary, the job:failed event and the job's error_kind). */
export type FailureKind =
  | 'job-error' // the service reported status error
  | 'needs-fix' // refused for a reason a retry cannot change (src/sync/refused-for-good.ts)
  | 'maybe-accepted' // upload failed after the body was sent: may be billed
  | 'quota' // 456
  | 'budget' // a budget cap was reached during the run: not uploaded this run
  | 'auth' // 401/403
  | 'rejected' // 400/413...: the service refused the upload
  | 'transient' // 429/5xx/network after every retry; resumes next run
  | 'output' // writing the output failed
  | 'qa-failed' // the downloaded output failed a hard check (docs/qa.md): quarantined, not retried
  | 'collision'
  | 'path-escape'
  | 'unwritable-name'
  | 'gave-up'
  | 'drift' // its style list was changed on the service (policy fail): not sent until resolved
  | 'not-planned' // sync --plan: not what the approved plan priced (a source rewritten since)
  | 'stopped'; // the run was stopped before this job finished

export interface FailedItem {
  mapping: string;
  file: string;
  target: string;
  kind: FailureKind;
  error: string;
  documentId?: string;
  /** True when a later run will try again (transient, or attempts < max_attempts). */
  willRetry: boolean;
}

export interface SkippedItem {
  mapping: string;
  file: string;
  reason: string;
  message: string;
}

export interface SyncSummary {
  runId: number;
  dryRun: boolean;
  /** Source files found (supported, after include/exclude). */
  files: number;
  /** Files whose content was hashed this run (the rest took the size+mtime fast path). */
  hashed: number;
  /** (file, target) units uploaded and downloaded this run. */
  translated: number;
  /** Resumed from an earlier run's recorded upload (id+key) and completed. */
  resumed: number;
  /** Outputs copied from an identical translation instead of uploading. */
  reused: number;
  /** (file, target) units already up to date. */
  unchanged: number;
  /**
   * (file, target) units whose source was saved again without a change of content (other bytes,
   * same content digest): outputs kept, nothing uploaded.
   */
  resaved: number;
  /** Outputs made with an older version of their style list or glossary, left as they are. */
  stale: number;
  /** Stale outputs re-translated because of --retranslate stale. */
  retranslated: number;
  unsupported: SkippedItem[];
  skipped: SkippedItem[];
  /** Mappings whose source folder is away (not "nothing to do": the run fails). */
  sourceMissing: SkippedItem[];
  failed: FailedItem[];
  /** Documents uploaded again because their download was lost (crash mid-download). */
  lostDownloads: Array<{ mapping: string; file: string; target: string; documentId: string }>;
  /**
   * Documents uploaded again although an earlier upload may have been accepted (possibly billed
   * twice): a crash between the upload and the record of its answer, or (`cause: 'lost-answer'`) an
   * answer lost in this run.
   */
  /**
   * `taken-over`: this worker's answer came after another worker took the job over (and uploads it
   * again); `raced`: another worker sent the same output at the same moment.
   */
  unconfirmedUploads: Array<{
    mapping: string;
    file: string;
    target: string;
    cause?: 'lost-answer' | 'taken-over' | 'raced';
    documentId?: string;
  }>;
  /**
   * Outputs delivered with findings of the soft output checks (docs/qa.md), each finding one line.
   * Absent when there were none.
   */
  flagged?: Array<{ mapping: string; file: string; target: string; findings: string[] }>;
  /** Outputs deleted because their source was deleted (on_source_delete: delete). */
  deletedOutputs: string[];
  /** Sources gone since the last run. */
  removedSources: number;
  /**
   * What the service billed during the run, from the state's ledger of charges (src/state/billed.ts):
   * documents it reported translated (quarantined ones and those bought again included), uploads
   * possibly billed (their answer lost), text requests. The same figure `report` and `status` add up.
   */
  billedCharacters: number;
  /** Documents uploaded (each a billed call), counted as the service answered them. */
  uploads: number;
  /**
   * Uploads the ledger holds as possibly billed: their answer was lost or hidden by a crash, so
   * they are not among `uploads` (their characters are in `billedCharacters`). Absent when none.
   */
  possiblyBilled?: number;
  /** Text requests sent (POST /v2/translate, method: segments; each a billed call). */
  textRequests: number;
  /**
   * Where the segments of its segment-path translations came from, per target language, from the
   * ledger (src/billing/leverage.ts: the plan's columns; remaining: what its text requests billed).
   * Absent when the run translated nothing segment by segment.
   */
  leverage?: LeverageByTarget;
  /** Why uploads stopped early, if they did (quota, auth, interrupted). */
  stoppedReason?: string;
  /** Stopped by a signal: not a failure; `left` outputs are resumed by the next run. */
  interrupted: boolean;
  /** Outputs not finished because the run was stopped (not failures: the next run resumes them). */
  left: number;
  /** Of those, documents already uploaded (id and key recorded): collected by the next run. */
  leftUploaded: number;
  /**
   * Several workers on one state: outputs another worker was translating when this run came to them
   * (left to it; a sync waits for them before it ends). Absent when there were none.
   */
  elsewhere?: number;
  /**
   * Outputs another worker failed or took since this run planned them: nothing sent for them here
   * (the next run decides them). Absent when there were none.
   */
  notSent?: Array<{ mapping: string; file: string; target: string; why: string }>;
  durationMs: number;
}

export function emptySummary(runId: number, dryRun: boolean): SyncSummary {
  return {
    runId,
    dryRun,
    files: 0,
    hashed: 0,
    translated: 0,
    resumed: 0,
    reused: 0,
    unchanged: 0,
    resaved: 0,
    stale: 0,
    retranslated: 0,
    unsupported: [],
    skipped: [],
    sourceMissing: [],
    failed: [],
    lostDownloads: [],
    unconfirmedUploads: [],
    deletedOutputs: [],
    removedSources: 0,
    billedCharacters: 0,
    uploads: 0,
    textRequests: 0,
    interrupted: false,
    left: 0,
    leftUploaded: 0,
    durationMs: 0,
  };
}

/** Counts for the runs table. */
export function summaryCounts(s: SyncSummary): Record<string, number> {
  return {
    files: s.files,
    hashed: s.hashed,
    translated: s.translated,
    resumed: s.resumed,
    reused: s.reused,
    unchanged: s.unchanged,
    resaved: s.resaved,
    stale: s.stale,
    retranslated: s.retranslated,
    unsupported: s.unsupported.length,
    skipped: s.skipped.length,
    ...(s.sourceMissing.length ? { source_missing: s.sourceMissing.length } : {}),
    failed: s.failed.length,
    ...(s.flagged?.length ? { flagged: s.flagged.length } : {}),
    lost_downloads: s.lostDownloads.length,
    unconfirmed_uploads: s.unconfirmedUploads.length,
    deleted_outputs: s.deletedOutputs.length,
    uploads: s.uploads,
    ...(s.textRequests ? { text_requests: s.textRequests } : {}),
    left: s.left,
    ...(s.elsewhere ? { elsewhere: s.elsewhere } : {}),
    ...(s.notSent?.length ? { not_sent: s.notSent.length } : {}),
  };
}

/**
 * The billed calls a run's bill is for, each unit named: "12 uploads and 30 text requests"; documents
 * a resumed run collected were uploaded (and are billed) by an earlier run's upload.
 */
function billedFor(s: SyncSummary): string {
  return formatBilledCalls({
    documents: s.translated,
    uploads: s.uploads,
    textRequests: s.textRequests,
    earlier: s.resumed,
    again: s.lostDownloads.length,
    unconfirmed: s.possiblyBilled ?? 0,
  });
}

/** The summary as `--json` prints it: with `billing:` set, what the run billed in money too. */
export function summaryJson(
  s: SyncSummary,
  rate?: BillingRate,
): SyncSummary & { billedCost?: { amount: number; currency: string } } {
  if (!rate) return s;
  return {
    ...s,
    ...(s.leverage ? { leverage: pricedLeverage(s.leverage, rate) } : {}),
    billedCost: { amount: costOf(s.billedCharacters, rate), currency: rate.currency },
  };
}

/** The summary for people; with `billing:` set, figures in money as well as characters. */
export function formatSummary(s: SyncSummary, rate?: BillingRate): string {
  const lines: string[] = [];
  const n = formatCount;
  // Files and outputs are different units: one source file has an output per target language.
  lines.push(
    `${s.dryRun ? 'Dry run: ' : ''}${formatCounted(s.files, 'source file')}; outputs: ` +
      `${n(s.translated)} ${s.dryRun ? 'to translate' : 'translated'}` +
      (s.resumed ? ` (${n(s.resumed)} resumed)` : '') +
      `, ${n(s.reused)} reused, ${n(s.unchanged)} unchanged` +
      (s.resaved ? `, ${n(s.resaved)} re-saved, unchanged` : '') +
      `, ${n(s.stale)} stale` +
      (s.retranslated ? ` (${n(s.retranslated)} re-translated)` : '') +
      `, ${n(s.failed.length)} failed` +
      (s.flagged?.length ? `, ${n(s.flagged.length)} flagged by the output checks` : '') +
      (s.unsupported.length ? `; ${formatCounted(s.unsupported.length, 'file')} unsupported` : ''),
  );
  lines.push(
    `Billed: ${formatBill(s.billedCharacters, rate)} for ${billedFor(s)}, in ${formatDuration(s.durationMs)}`,
  );
  if (s.leverage) lines.push(...leverageLines(s.leverage, 'run', rate));
  if (s.elsewhere)
    lines.push(
      `${n(s.elsewhere)} outputs were translated by other workers sharing the state (not billed here).`,
    );
  if (s.stale && !s.retranslated) lines.push(`${staleAdvice(s.stale)}.`);
  if (s.interrupted)
    lines.push(
      `Interrupted: ${n(s.left)} outputs left for the next run` +
        (s.leftUploaded ? ` (${n(s.leftUploaded)} already uploaded: collected, not paid again)` : '') +
        '; run the same command again to resume.',
    );
  else if (s.stoppedReason) lines.push(`Uploads stopped: ${s.stoppedReason}`);
  for (const m of s.sourceMissing) lines.push(`  failed: mapping ${m.mapping}: ${m.message}`);
  for (const f of s.failed)
    lines.push(`  failed: ${f.mapping}/${f.file} -> ${f.target}: ${f.error}${afterFailure(f)}`);
  for (const f of s.flagged ?? [])
    for (const finding of f.findings)
      lines.push(`  flagged: ${f.mapping}/${f.file} -> ${f.target}: ${finding} (delivered; docs/qa.md)`);
  for (const l of s.lostDownloads)
    lines.push(
      `  lost download: ${l.mapping}/${l.file} -> ${l.target} (document ${l.documentId}): uploaded again: billed twice (the service billed the lost translation)`,
    );
  for (const u of s.unconfirmedUploads)
    lines.push(
      u.cause === 'lost-answer'
        ? `  unconfirmed upload: ${u.mapping}/${u.file} -> ${u.target}: the answer to its upload was lost (the service may have accepted it); uploaded again: possibly billed twice`
        : u.cause === 'taken-over'
          ? `  unconfirmed upload: ${u.mapping}/${u.file} -> ${u.target} (document ${u.documentId ?? ''}): answered after another worker took the job over (this worker stalled past its lease); that worker uploads it again: possibly billed twice`
          : u.cause === 'raced'
            ? `  unconfirmed upload: ${u.mapping}/${u.file} -> ${u.target}: another worker sent it at the same moment: possibly billed twice`
            : `  unconfirmed upload: ${u.mapping}/${u.file} -> ${u.target}: a crash hid whether the earlier upload arrived; uploaded again`,
    );
  for (const x of s.notSent ?? []) lines.push(`  not sent: ${x.mapping}/${x.file} -> ${x.target}: ${x.why}`);
  for (const u of s.unsupported) lines.push(`  unsupported: ${u.mapping}/${u.file} (${u.message})`);
  for (const k of s.skipped) lines.push(`  skipped: ${k.mapping}/${k.file}: ${k.message}`);
  for (const d of s.deletedOutputs) lines.push(`  deleted output: ${d}`);
  // File names and messages come from outside: each entry stays one line.
  return lines.map(printable).join('\n');
}

/** What follows a failure in the summary: that it is retried, or what the user must change. */
function afterFailure(f: FailedItem): string {
  if (f.kind === 'needs-fix') return ` ${notRetriedAdvice(f.error, f)}`;
  return f.willRetry ? ' (will retry next run)' : '';
}
