import type { RunRecord } from '../state/types.js';

// A run still going, as status, status --json, /status.json and the status page show it: what it
// billed so far (the ledger of charges and text requests, src/state/billed.ts) and the outputs it
// made so far. Its row holds neither until it ends.

/** What a running run has done so far. */
export interface RunSoFar {
  billed: number;
  translated: number;
  reused: number;
  failed: number;
}

/** SQL answering one row `{ translated, reused, failed }` for a run; `p` its id as the backend spells it. */
export const outputsOfRunSql = (p: string): string =>
  `SELECT
     CAST(COALESCE(SUM(CASE WHEN status = 'done' AND reused_from IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS translated,
     CAST(COALESCE(SUM(CASE WHEN status = 'done' AND reused_from IS NOT NULL THEN 1 ELSE 0 END), 0) AS BIGINT) AS reused,
     CAST(COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) AS BIGINT) AS failed
   FROM jobs WHERE run_id = ${p}`;

/** The row's figures as numbers (both drivers may answer BIGINT as a string). */
export function outputsOfRun(row: Record<string, unknown> | undefined): Omit<RunSoFar, 'billed'> {
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
        Object.entries({ translated: s.translated, reused: s.reused, failed: s.failed }).filter(
          ([, n]) => n > 0,
        ),
      );
      return { ...r, billed_characters: s.billed, counts: { ...r.counts, ...counts } };
    }),
  );
}
