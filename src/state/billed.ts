// What the pipeline has billed since a moment, the same on both backends: every job's recorded bill
// (set when its document or its segments are done), and the text requests of segment jobs whose
// bill is not recorded yet (stopped partway, failed, or still sending), counted when they were sent.
// A segment job's recorded bill is the sum of its text requests, so nothing is counted twice.

/** SQL answering one row `{ billed }`; `p` is the moment's parameter as the backend spells it. */
export const billedSinceSql = (p: string): string =>
  `SELECT CAST(
     COALESCE((SELECT SUM(billed_characters) FROM jobs
               WHERE billed_characters IS NOT NULL AND COALESCE(finished_at, updated_at) >= ${p}), 0)
     + COALESCE((SELECT SUM(t.characters) FROM text_requests t JOIN jobs j ON j.id = t.job_id
                 WHERE j.billed_characters IS NULL AND t.sent_at >= ${p}), 0) AS BIGINT) AS billed`;
