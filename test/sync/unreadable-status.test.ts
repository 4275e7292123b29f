import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { GARBLED_ANSWER_KINDS, type FaultSpec } from '../../src/local-service/types.js';
import { UNREADABLE_STATUS_LIMIT } from '../../src/sync/run/poll.js';
import { createFixture, type Fixture } from './fixture.js';

// A status answer of 200 that holds no status (a proxy's `{"message":"OK"}`) was polled for ever,
// holding the job's place and the run; one that was no JSON (a proxy's page, a body cut short)
// failed the document at the first, and an empty one with a TypeError ("Cannot read properties of
// undefined"). The polls ask again and give up after UNREADABLE_STATUS_LIMIT answers in a row they
// cannot read, whatever was wrong with them: the document stays recorded, the next run collects it.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const STATUS = { method: 'POST', path: '/v2/document/' };

/** One document to German, its service answering with `fault`. */
const oneDocument = (fault: FaultSpec) =>
  createFixture({
    files: { 'a.txt': 'One document.\n' },
    manifest: {
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    },
    service: { faults: [fault] },
  });

describe('status answers without a status', () => {
  it.each(GARBLED_ANSWER_KINDS)(
    '(%s) give up after a bound, the document kept for the next run',
    async (kind) => {
      fx = await oneDocument({ match: STATUS, garble: 1_000_000, garbleAs: kind });
      const abort = new AbortController();
      const run = fx.sync({ signal: abort.signal, stopDeadlineMs: 0 });
      // Polled for ever, the run would not end: stopped after a while so that the test says so.
      const ended = await Promise.race([run.then(() => true), sleep(30_000).then(() => false)]);
      if (!ended) abort.abort();
      const s = await run;
      expect(ended, 'the sync kept polling status answers without a status').toBe(true);
      expect(s.failed.map((f) => [f.file, f.kind, f.willRetry])).toEqual([['a.txt', 'transient', true]]);
      expect(s.failed[0]?.error).toContain(`${UNREADABLE_STATUS_LIMIT} status checks in a row`);
      const polls = fx.service.requests().filter((r) => r.fault?.includes('garble'));
      expect(polls.length).toBe(UNREADABLE_STATUS_LIMIT);

      // The service answers again: the next run collects the recorded document, no new upload.
      fx.service.clearFaults();
      const mark = fx.mark();
      const next = await fx.sync();
      expect(next.failed).toEqual([]);
      expect(fx.uploads(mark)).toEqual([]);
      expect(fx.read('out/de/a.txt')).toMatch(/^\[de\]/);
    },
    90_000,
  );

  it.each(GARBLED_ANSWER_KINDS)(
    '(%s) a few in a row, then a status: the document is delivered in this run',
    async (kind) => {
      fx = await oneDocument({ match: STATUS, garble: UNREADABLE_STATUS_LIMIT - 1, garbleAs: kind });
      const s = await fx.sync();
      expect(s.failed).toEqual([]);
      expect(s.translated).toBe(1);
      expect(fx.uploads()).toHaveLength(1);
      expect(fx.read('out/de/a.txt')).toMatch(/^\[de\]/);
    },
  );
});
