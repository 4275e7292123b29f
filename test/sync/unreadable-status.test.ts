import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { UNREADABLE_STATUS_LIMIT } from '../../src/sync/run/poll.js';
import { createFixture, type Fixture } from './fixture.js';

// A status answer of 200 that holds no status (a proxy's `{"message":"OK"}`) was polled for ever,
// holding the job's place and the run. The polls give up after UNREADABLE_STATUS_LIMIT answers in a
// row they cannot read: the document stays recorded, and the next run collects it.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const STATUS = { method: 'POST', path: '/v2/document/' };

describe('status answers without a status', () => {
  it('give up after a bound, the document kept for the next run', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'One document.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      service: { faults: [{ match: STATUS, garble: 1_000_000, garbleAs: 'other-json' }] },
    });
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
  }, 90_000);
});
