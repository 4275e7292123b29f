import { MINIMUM_BILLED_CHARACTERS } from '../api/types.js';
import { hasMinimum } from '../billing/price.js';
import { addLeverage, addLeverageRow, emptyLeverage, type Leverage } from '../billing/leverage.js';
import type { JobRecord, StateStore } from '../state/store.js';
import { rowsOf, type BilledJob, type ReportSource } from './report-rows.js';

export type { ReportSource } from './report-rows.js';

// Read-only questions to the state for `locsync status` and `locsync report`. The report's rows
// come from either backend (ReportRows); the figures are made from them here, the same for both.

export type ReportBy = 'language' | 'mapping' | 'month' | 'cost-centre';
export const REPORT_BY: readonly ReportBy[] = ['language', 'mapping', 'month', 'cost-centre'];

/** The row of mappings with no `billing.cost_centre` (or no longer in the manifest). */
export const NO_COST_CENTRE = '(no cost centre)';

export interface BillingRow {
  /** Target language, mapping name, month (YYYY-MM) or cost centre, by the grouping asked for. */
  key: string;
  /** Documents translated (uploaded, billed, downloaded). */
  documents: number;
  billed_characters: number;
  /** Documents billed at exactly the minimum (their real count was smaller, or equal). */
  minimum_documents: number;
  /** What those documents were billed: minimum_documents x 50,000. */
  minimum_billed_characters: number;
  /**
   * Characters the minimum added over the documents' real count, where the real count is known
   * (recorded as source_characters, or counted from the unchanged source file); 0 when no document
   * was billed at the minimum; null when some were and the real count is known for none of them.
   */
  minimum_added_characters: number | null;
  /** Minimum-billed documents whose real count is not known (not included in the line above). */
  minimum_unknown_documents: number;
  /** Outputs copied from an identical translation: nothing billed. */
  reused_documents: number;
  /**
   * Characters of the text requests of segment documents not done (stopped partway, failed, still
   * sending; method: segments): billed, and counted in billed_characters, by when they were sent.
   */
  unfinished_characters: number;
  /**
   * Of billed_characters, what the service may have billed without our knowing for sure: uploads
   * whose answer was lost or hidden by a crash, text requests with no recorded answer.
   */
  possibly_billed_characters: number;
  /**
   * Where the segment path's segments came from, as `plan` counts them (src/billing/leverage.ts):
   * new (bought; remaining: what their text requests billed), repeated in a run, from the memory.
   * Present when the report was asked with them (`report`; `status` does not read them).
   */
  leverage?: Leverage;
}

function emptyRow(key: string): BillingRow {
  return {
    key,
    documents: 0,
    billed_characters: 0,
    minimum_documents: 0,
    minimum_billed_characters: 0,
    minimum_added_characters: 0,
    minimum_unknown_documents: 0,
    reused_documents: 0,
    unfinished_characters: 0,
    possibly_billed_characters: 0,
  };
}

/** Real character counts of documents by content hash (sha256), where known. */
export type CharacterCounts = ReadonlyMap<string, number>;

function addJob(row: BillingRow, j: BilledJob, counts: CharacterCounts): void {
  if (j.reused_from !== null) {
    row.reused_documents++;
    return;
  }
  // What was billed comes from the ledger (chargesSince): a document bought twice has two charges.
  const billed = j.billed_characters ?? 0;
  row.documents++;
  if (hasMinimum(j.rel_path) && billed === MINIMUM_BILLED_CHARACTERS) {
    row.minimum_documents++;
    row.minimum_billed_characters += billed;
    const real = j.source_characters ?? counts.get(j.sha256);
    if (real !== undefined && real <= billed) {
      row.minimum_added_characters = (row.minimum_added_characters ?? 0) + (billed - real);
    } else {
      row.minimum_unknown_documents++;
    }
  }
}

/** What the minimum added is unknown when it is unknown for every document billed at it. */
function settleMinimum(row: BillingRow): BillingRow {
  if (row.minimum_documents > 0 && row.minimum_unknown_documents === row.minimum_documents)
    row.minimum_added_characters = null;
  return row;
}

function mergeRow(into: BillingRow, r: BillingRow): void {
  into.documents += r.documents;
  into.billed_characters += r.billed_characters;
  into.minimum_documents += r.minimum_documents;
  into.minimum_billed_characters += r.minimum_billed_characters;
  if (r.minimum_added_characters !== null)
    into.minimum_added_characters = (into.minimum_added_characters ?? 0) + r.minimum_added_characters;
  into.minimum_unknown_documents += r.minimum_unknown_documents;
  into.reused_documents += r.reused_documents;
  into.unfinished_characters += r.unfinished_characters;
  into.possibly_billed_characters += r.possibly_billed_characters;
  if (r.leverage) addLeverage((into.leverage ??= emptyLeverage()), r.leverage);
}

/** The columns of a billing table (text, HTML), in order, with their headings. */
export const BILLING_COLUMNS: ReadonlyArray<{ key: keyof BillingRow; title: string }> = [
  { key: 'documents', title: 'documents' },
  { key: 'billed_characters', title: 'billed chars' },
  { key: 'minimum_documents', title: 'at minimum' },
  { key: 'minimum_billed_characters', title: 'billed at minimum' },
  { key: 'minimum_added_characters', title: 'added by minimum' },
  { key: 'reused_documents', title: 'reused (free)' },
];

export interface BillingReport {
  by: ReportBy;
  /** ISO date of the first day counted, if limited. */
  since: string | null;
  rows: BillingRow[];
  total: BillingRow;
}

/**
 * The done jobs (finished at or after `since`) added up in one row per key, with the text requests of
 * segment jobs not done (sent at or after `since`).
 */
function groupJobs(
  state: ReportSource,
  opts: { since?: string; counts?: CharacterCounts; leverage?: boolean },
  keyOf: (j: { mapping: string; target_lang: string; month: string }) => string,
): BillingRow[] {
  const rows = new Map<string, BillingRow>();
  const rowOf = (key: string) => {
    let row = rows.get(key);
    if (!row) rows.set(key, (row = emptyRow(key)));
    return row;
  };
  const source = rowsOf(state);
  for (const j of source.doneJobs(opts.since))
    addJob(rowOf(keyOf({ ...j, month: monthOf(j.finished_at) })), j, opts.counts ?? new Map());
  for (const u of source.unfinishedSegments(opts.since))
    rowOf(keyOf({ ...u, month: monthOf(u.sent_at) })).unfinished_characters += u.characters;
  for (const c of source.charges(opts.since)) {
    const row = rowOf(keyOf({ ...c, month: monthOf(c.at) }));
    row.billed_characters += c.characters;
    if (!c.sure) row.possibly_billed_characters += c.characters;
  }
  if (opts.leverage) {
    for (const r of source.leverage(opts.since)) {
      const row = rowOf(keyOf({ ...r, month: monthOf(r.at) }));
      addLeverageRow((row.leverage ??= emptyLeverage()), r);
    }
    for (const row of rows.values()) row.leverage ??= emptyLeverage();
  }
  return [...rows.values()].map(settleMinimum).sort((a, b) => a.key.localeCompare(b.key));
}

const monthOf = (at: string | null) => (at ?? '').slice(0, 7) || 'unknown';

/**
 * Billed characters and documents of the done jobs (finished at or after `since`), grouped.
 * `costCentres`: each mapping's `billing.cost_centre` in the manifest read now (the ledger records
 * the mapping, so a mapping moved to another cost centre takes its history with it).
 */
export function billingReport(
  state: ReportSource,
  opts: {
    by: ReportBy;
    since?: string;
    counts?: CharacterCounts;
    costCentres?: ReadonlyMap<string, string>;
    /** With each row's leverage (the segment path's columns). */
    leverage?: boolean;
  },
): BillingReport {
  const keyOf: Record<ReportBy, (j: { mapping: string; target_lang: string; month: string }) => string> = {
    language: (j) => j.target_lang,
    mapping: (j) => j.mapping,
    month: (j) => j.month,
    'cost-centre': (j) => opts.costCentres?.get(j.mapping) ?? NO_COST_CENTRE,
  };
  const sorted = groupJobs(state, opts, keyOf[opts.by]);
  const total = emptyRow('total');
  if (opts.leverage) total.leverage = emptyLeverage();
  for (const r of sorted) mergeRow(total, r);
  return { by: opts.by, since: opts.since ?? null, rows: sorted, total: settleMinimum(total) };
}

/** One row per month and target language (the HTML report's chart), months in order. */
export function billingByMonthAndLanguage(
  state: ReportSource,
  opts: { since?: string; counts?: CharacterCounts } = {},
): Array<BillingRow & { month: string; language: string }> {
  return groupJobs(state, opts, (j) => `${j.month} ${j.target_lang}`).map((r) => {
    const [month = '', language = ''] = r.key.split(' ');
    return { ...r, month, language };
  });
}

/**
 * A job started and not finished, with its text requests (method: segments): those answered, and those
 * recorded as sent with no recorded answer (in progress, or possibly billed when the run was killed).
 */
export type InFlightJob = JobRecord & { answered_requests: number; unanswered_requests: number };

/** Jobs started and not finished: uploads in progress or recorded, waiting for the service (any backend's SQL). */
export const JOBS_IN_FLIGHT_SQL = `SELECT j.*,
         (SELECT COUNT(*) FROM text_requests t WHERE t.job_id = j.id AND t.state = 'answered') AS answered_requests,
         (SELECT COUNT(*) FROM text_requests t WHERE t.job_id = j.id AND t.state = 'sent') AS unanswered_requests
       FROM jobs j WHERE j.status IN ('pending', 'uploaded') AND (j.upload_started_at IS NOT NULL OR j.document_id IS NOT NULL)
       ORDER BY COALESCE(j.upload_started_at, j.created_at)`;

/**
 * Jobs whose last attempt failed (including recorded documents whose status check or download
 * failed) and whose output was not made since (any backend's SQL; then isReportedFailure).
 */
export const FAILED_JOBS_SQL = `SELECT * FROM jobs WHERE (status = 'failed' OR (status IN ('pending', 'uploaded') AND error IS NOT NULL))
         AND NOT EXISTS (SELECT 1 FROM jobs d WHERE d.status = 'done' AND d.id > jobs.id AND d.mapping = jobs.mapping
           AND d.rel_path = jobs.rel_path AND d.target_lang = jobs.target_lang)
       ORDER BY updated_at DESC`;

/** A lost download waiting for its new upload is not a failure to show. */
export function isReportedFailure(j: JobRecord): boolean {
  return j.error_kind !== 'lost-download' || j.status === 'failed';
}

export function jobsInFlight(state: StateStore): InFlightJob[] {
  return state.db.prepare<[], InFlightJob>(JOBS_IN_FLIGHT_SQL).all();
}

export function failedJobs(state: StateStore): JobRecord[] {
  return state.db.prepare<[], JobRecord>(FAILED_JOBS_SQL).all().filter(isReportedFailure);
}

/**
 * Documents billed at exactly the minimum whose real count is not recorded and whose source file
 * is still the one translated (same sha256 as recorded in the files table): mapping, path, sha256.
 */
export function minimumJobsToCount(
  state: ReportSource,
  since?: string,
): Array<{ mapping: string; rel_path: string; sha256: string }> {
  return rowsOf(state)
    .minimumCandidates(since)
    .filter((r) => hasMinimum(r.rel_path));
}

/**
 * A document whose upload was repeated after the service may already have accepted (and billed) an
 * earlier one: the earlier answer was lost (maybe-accepted), a crash hid it (unconfirmed), or the
 * translation was lost before its download (a service that bills on translation billed it).
 */
export interface RepeatedUpload {
  mapping: string;
  file: string;
  target: string;
  output: string;
  status: string;
  /** Uploads whose answer was lost or hidden by a crash (each may have been billed). */
  unconfirmed_uploads: number;
  /** Translations lost before their download (uploaded again). */
  lost_downloads: number;
  /** Characters one translation of it bills (the recorded billed count, or the counted source). */
  characters: number | null;
  /**
   * Method segments: its text requests with no recorded answer (lost, or cut by a crash); their
   * segments were sent again (absent for a document upload).
   */
  unanswered_requests?: number;
  /**
   * At most what the repeats may have billed on top: for a document, characters x unconfirmed
   * uploads; for segments, the characters of the requests with no recorded answer (only they were
   * sent more than once).
   */
  possibly_extra_characters: number | null;
  /**
   * What was surely billed on top: characters x translations lost before their download (the
   * service billed each translation it made, and the document was bought again).
   */
  surely_extra_characters: number | null;
  finished_at: string | null;
}

/** Documents whose upload was repeated after a possibly billed one (since `since`, when given). */
export function repeatedUploads(state: ReportSource, since?: string): RepeatedUpload[] {
  return rowsOf(state)
    .repeatedJobs(since)
    .map((j) => {
      const characters = j.billed_characters ?? j.source_characters;
      const segments = j.text_requests > 0;
      const times = (n: number) => (characters === null ? null : characters * n);
      return {
        mapping: j.mapping,
        file: j.rel_path,
        target: j.target_lang,
        output: j.output_path,
        status: j.status,
        unconfirmed_uploads: j.unconfirmed_uploads,
        lost_downloads: j.lost_downloads,
        characters,
        ...(segments ? { unanswered_requests: j.unanswered_requests } : {}),
        possibly_extra_characters: segments ? j.unanswered_characters : times(j.unconfirmed_uploads),
        surely_extra_characters: segments ? 0 : times(j.lost_downloads),
        finished_at: j.finished_at,
      };
    });
}
