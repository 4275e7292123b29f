import type { SegmentMemory } from '../../state/segment-types.js';
import type { Recalled } from '../../state/types.js';

// The run's lookups in the segment memory, one query for many jobs (issue 51). Each segment job looks
// its document's segments up when it has read them; a first sync of 30,000 small string files asked
// the state 30,000 times, each a round trip to PostgreSQL. Here the lookups that come while one query
// is on its way (and those of the same turn of the event loop) go together in the next query, up to
// MAX_KEYS keys: one query per batch of jobs. A query starts after every lookup it answers was asked,
// so it sees every answer remembered before that (what the claims of ./in-flight.ts rely on).

/** Keys in one query at most (a document with more gets a query of its own). */
const MAX_KEYS = 50_000;

interface Asked {
  keys: readonly string[];
  resolve: (found: Map<string, Recalled>) => void;
  reject: (err: unknown) => void;
}

/** `memory` whose lookups (recall, lookup) are gathered into shared queries; the rest as it is. */
export function sharedRecall(memory: SegmentMemory): SegmentMemory {
  const asked: Asked[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    // The jobs whose reads end in this turn ask in this turn. No longer wait than that: a job holds
    // its worker place while it looks up, and a wait here is every document's.
    await new Promise<void>((r) => setImmediate(r));
    while (asked.length > 0) {
      const batch: Asked[] = [];
      const keys = new Set<string>();
      while (asked.length > 0 && (batch.length === 0 || keys.size + asked[0]!.keys.length <= MAX_KEYS)) {
        const a = asked.shift()!;
        batch.push(a);
        for (const k of a.keys) keys.add(k);
      }
      try {
        const found = await memory.recall([...keys]);
        for (const a of batch) {
          const mine = new Map<string, Recalled>();
          for (const k of a.keys) {
            const r = found.get(k);
            if (r) mine.set(k, r);
          }
          a.resolve(mine);
        }
      } catch (err) {
        for (const a of batch) a.reject(err);
      }
    }
    running = false;
  }

  const recall = (keys: readonly string[]): Promise<Map<string, Recalled>> => {
    if (keys.length === 0) return Promise.resolve(new Map());
    return new Promise((resolve, reject) => {
      asked.push({ keys, resolve, reject });
      if (!running) void drain();
    });
  };

  return {
    recall,
    lookup: async (keys) => {
      const out = new Map<string, string>();
      for (const [k, r] of await recall(keys)) out.set(k, r.translation);
      return out;
    },
    put: (rows) => memory.put(rows),
    forgetAnswers: (keys) => memory.forgetAnswers(keys),
    textRequestsSent: (shares) => memory.textRequestsSent(shares),
    textRequestsAnswered: (shares) => memory.textRequestsAnswered(shares),
    textRequestsLost: (ids) => memory.textRequestsLost(ids),
    textRequestsNotSent: (ids) => memory.textRequestsNotSent(ids),
    unansweredOf: (jobId) => memory.unansweredOf(jobId),
    billedOf: (jobId) => memory.billedOf(jobId),
    recordLeverage: (jobId, runId, counts) => memory.recordLeverage(jobId, runId, counts),
    leverageRows: (scope) => memory.leverageRows(scope),
  };
}
