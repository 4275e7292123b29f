import { REQUEST_OF_ROW } from '../state/billed.js';
import type { RunBill, RunRecord } from '../state/types.js';

// A run still going, as status, status --json, /status.json and the status page show it: what it
// billed so far (the ledger of charges and text requests, src/state/billed.ts) and the outputs it
// made so far. Its row holds neither until it ends.

/** What a running run has done so far. */
export interface RunSoFar {
  billed: number;
  textRequests: number;
  translated: number;
  reused: number;
  failed: number;
}

/** What one run billed by mapping and target language, from the ledger (/metrics of a watch). */
export interface LedgerRow {
  mapping: string;
  target_lang: string;
  billed: number;
  uploads: number;
  text_requests: number;
}

/** SQL of LedgerRow for a run; `p` its id as the backend spells it (used twice). */
export const ledgerOfRunSql = (p: string): string =>
  `SELECT j.mapping, j.target_lang,
     CAST(COALESCE(SUM(x.characters), 0) AS BIGINT) AS billed,
     CAST(SUM(x.uploads) AS BIGINT) AS uploads,
     CAST(COUNT(DISTINCT x.request) AS BIGINT) AS text_requests
   FROM (SELECT job_id, characters, 1 AS uploads, NULL AS request FROM charges WHERE run_id = ${p}
         UNION ALL SELECT job_id, characters, 0 AS uploads, ${REQUEST_OF_ROW} AS request
         FROM text_requests WHERE run_id = ${p}) x
   JOIN jobs j ON j.id = x.job_id
   GROUP BY j.mapping, j.target_lang ORDER BY j.mapping, j.target_lang`;

/** The rows as numbers (both drivers may answer BIGINT as a string). */
export function ledgerRows(rows: Array<Record<string, unknown>>): LedgerRow[] {
  return rows.map((r) => ({
    mapping: String(r.mapping),
    target_lang: String(r.target_lang),
    billed: Number(r.billed ?? 0),
    uploads: Number(r.uploads ?? 0),
    text_requests: Number(r.text_requests ?? 0),
  }));
}

/** The ledger rows of several runs added up by mapping and target language. */
export async function ledgerOfRuns(
  source: { ledgerOfRun(runId: number): Promise<LedgerRow[]> },
  runIds: readonly number[],
): Promise<LedgerRow[]> {
  const sums = new Map<string, LedgerRow>();
  for (const id of runIds)
    for (const r of await source.ledgerOfRun(id)) {
      const key = `${r.mapping}\u0000${r.target_lang}`;
      const sum = sums.get(key);
      if (!sum) sums.set(key, { ...r });
      else {
        sum.billed += r.billed;
        sum.uploads += r.uploads;
        sum.text_requests += r.text_requests;
      }
    }
  return [...sums.values()];
}

/** A run's bill (src/state/billed.ts) as the figures of RunSoFar. */
export function soFarOfBill(b: RunBill): Pick<RunSoFar, 'billed' | 'textRequests'> {
  return { billed: b.characters, textRequests: b.textRequests };
}

/** SQL answering one row `{ translated, reused, failed }` for a run; `p` its id as the backend spells it. */
export const outputsOfRunSql = (p: string): string =>
  `SELECT
     CAST(COALESCE(SUM(CASE WHEN status = 'done' AND reused_from IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS translated,
     CAST(COALESCE(SUM(CASE WHEN status = 'done' AND reused_from IS NOT NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS reused,
     CAST(COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) AS BIGINT) AS failed
   FROM jobs WHERE run_id = ${p}`;

/** The row's figures as numbers (both drivers may answer BIGINT as a string). */
export function outputsOfRun(
  row: Record<string, unknown> | undefined,
): Omit<RunSoFar, 'billed' | 'textRequests'> {
  return {
    translated: Number(row?.translated ?? 0),
    reused: Number(row?.reused ?? 0),
    failed: Number(row?.failed ?? 0),
  };
}

/** `runs` with each running one's billed characters and counts so far filled in. */
export async function withRunsSoFar(
  runs: RunRecord[],
  soFar: (runId: number) => Promise<RunSoFar>,
): Promise<RunRecord[]> {
  return Promise.all(
    runs.map(async (r) => {
      if (r.status !== 'running') return r;
      const s = await soFar(r.id);
      const counts = Object.fromEntries(
        Object.entries({
          translated: s.translated,
          reused: s.reused,
          failed: s.failed,
          text_requests: s.textRequests,
        }).filter(([, n]) => n > 0),
      );
      return { ...r, billed_characters: s.billed, counts: { ...r.counts, ...counts } };
    }),
  );
}
