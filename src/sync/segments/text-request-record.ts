import type { NewTextRequest, SegmentMemory, SegmentMemoryRow } from '../../state/types.js';
import type { CallRecord } from '../run/billed-call.js';

// The segment path's record of one text request (text_requests), beside the attempts' on the job
// rows: each job's share of the request (./batch-pool.ts packs several documents' texts in one) is
// recorded as it leaves, removed when the service surely did not take it, kept as lost when it may
// have been billed, answered with the translations it brought. Every change of a request's shares
// is one write of the state (one transaction): a crash leaves all of its shares sent or none, all
// answered or none, never a request half recorded.

export interface RequestRecord extends CallRecord {
  /** The request came back: each share's translations remembered with it (rows in share order). */
  answered(rows: ReadonlyArray<readonly SegmentMemoryRow[]>): Promise<void>;
}

/** The record of one request whose shares are `shares`, in `memory` (the run's segment memory). */
export function requestRecord(memory: SegmentMemory, shares: readonly NewTextRequest[]): RequestRecord {
  let ids: number[] | undefined;
  return {
    sent: async () => {
      ids = await memory.textRequestsSent(shares);
    },
    notTaken: async () => {
      if (ids) await memory.textRequestsNotSent(ids);
    },
    lost: async () => {
      if (ids) await memory.textRequestsLost(ids);
    },
    answered: async (rows) => {
      const sent = ids;
      if (!sent) throw new Error('a text request answered that was never recorded as sent');
      await memory.textRequestsAnswered(sent.map((id, i) => ({ id, rows: rows[i] ?? [] })));
    },
  };
}
