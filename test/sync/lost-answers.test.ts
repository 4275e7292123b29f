import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, type Fixture } from './fixture.js';

// An upload whose answer was lost waits for its turn to be uploaded again in the same run; when
// uploads stop before it comes (here: the quota), it is reported as today, maybe-accepted, for the
// next run, which delivers it.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const UPLOAD = { method: 'POST', path: '/v2/document' };

describe('a lost upload answer when uploads stop before its turn', () => {
  it('is reported failed as maybe-accepted for the next run, which delivers it', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Its answer is lost.\n', 'b.txt': 'Its upload meets the quota.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      // One at a time: the first upload's answer is dropped, the second upload is answered 456.
      service: {
        faults: [
          { match: UPLOAD, drop: 1, dropAfterBody: true },
          { match: UPLOAD, status: 456, count: 1 },
        ],
      },
    });
    const first = await fx.sync({ concurrency: 1 });
    // Which file came first is the worker's choice (on PostgreSQL workers start anywhere).
    const uploads = () =>
      fx!.service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload);
    const lost = uploads().find((r) => r.status === 0)?.upload?.filename;
    const other = lost === 'a.txt' ? 'b.txt' : 'a.txt';
    expect(first.stoppedReason).toMatch(/quota/);
    expect(first.unconfirmedUploads).toEqual([]);
    const failed = first.failed.find((f) => f.file === lost);
    expect(failed).toMatchObject({ kind: 'maybe-accepted', willRetry: true });
    expect(failed?.error).toMatch(/not uploaded again in this run \(uploads stopped: .*quota/);
    expect(first.failed.find((f) => f.file === other)).toMatchObject({ kind: 'quota', willRetry: true });
    expect(fx.exists(`out/de/${lost}`)).toBe(false);

    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(second.translated).toBe(2);
    expect(fx.exists('out/de/a.txt') && fx.exists('out/de/b.txt')).toBe(true);
    // The lost one: the document whose answer was lost, and the one delivered.
    expect(
      uploads()
        .filter((r) => r.upload?.filename === lost)
        .map((r) => r.status),
    ).toEqual([0, 200]);
  }, 60_000);

  it('counts against the budget twice: a repeat that would go over a cap is not made', async () => {
    fx = await createFixture({
      files: { 'a.txt': `${'A'.repeat(99)}\n` },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
      service: { faults: [{ match: UPLOAD, drop: 1, dropAfterBody: true }] },
    });
    // Room for one upload of a.txt (~100 characters), not for two.
    const s = await fx.sync({ budget: { caps: { perRun: 150 }, billedThisMonth: 0 } });
    expect(s.stoppedReason).toMatch(/budget/);
    expect(s.failed).toEqual([expect.objectContaining({ file: 'a.txt', kind: 'budget', willRetry: true })]);
    expect(s.failed[0]?.error).toMatch(
      /this run has 99 characters billed or in flight; the next upload \(about 99\)/,
    );
    expect(s.unconfirmedUploads).toEqual([]); // not uploaded again
    expect(fx.uploads()).toHaveLength(1); // the one the service took, never answered: no repeat
  }, 60_000);
});
