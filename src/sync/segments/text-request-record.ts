import type { NewTextRequest, SegmentMemory } from '../../state/types.js';
import type { CallRecord } from '../run/billed-call.js';

// The segment path's record of one text request (text_requests), beside the attempt's on the job
// row: recorded as it leaves, removed when the service surely did not take it, kept as lost when it
// may have been billed, answered with the translations it brought (SegmentJob).

export interface TextRequestRecord extends CallRecord {
  /** The request's id once it was recorded as sent (undefined: it never left). */
  readonly id: number | undefined;
}

export function textRequestRecord(memory: SegmentMemory, request: NewTextRequest): TextRequestRecord {
  let id: number | undefined;
  return {
    get id() {
      return id;
    },
    sent: async () => {
      id = await memory.textRequestSent(request);
    },
    notTaken: async () => {
      if (id !== undefined) await memory.textRequestNotSent(id);
    },
    lost: async () => {
      if (id !== undefined) await memory.textRequestLost(id);
    },
  };
}
