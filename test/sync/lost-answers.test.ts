import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { LOST_ANSWER_PAUSE_MS } from '../../src/sync/run/lost-answers.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { createFixture, type Fixture } from './fixture.js';

// An upload whose answer was lost waits for its turn to be uploaded again in the same run; when
// uploads stop before it is sent again (here: the quota; before its turn, or while it waits for a
// place after it), it is reported as today, maybe-accepted, for the next run, which delivers it.

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const UPLOAD = { method: 'POST', path: '/v2/document' };

/** Two documents, one place: the first upload's answer is dropped, the second upload is answered 456. */
function lostThenQuota(): Promise<Fixture> {
  return createFixture({
    files: { 'a.txt': 'Its answer is lost.\n', 'b.txt': 'Its upload meets the quota.\n' },
    manifest: {
      mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
    },
    service: {
      faults: [
        { match: UPLOAD, drop: 1, dropAfterBody: true },
        { match: UPLOAD, status: 456, count: 1 },
      ],
    },
  });
}

/** Uploads that reached the service with their document (the one answered 456 did not). */
function uploadsOf(f: Fixture) {
  return f.service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload);
}

/**
 * The first run: the lost one (not uploaded again: uploads had stopped) failed as maybe-accepted,
 * not as the quota's, since its first upload may have been billed; the other failed on the quota.
 * Answers the lost one's file (which file came first is the worker's choice: on PostgreSQL workers
 * start anywhere).
 */
function expectLostMaybeAccepted(f: Fixture, first: SyncSummary): string | undefined {
  const lost = uploadsOf(f).find((r) => r.status === 0)?.upload?.filename;
  const other = lost === 'a.txt' ? 'b.txt' : 'a.txt';
  expect(first.stoppedReason).toMatch(/quota/);
  expect(first.unconfirmedUploads).toEqual([]);
  const failed = first.failed.find((x) => x.file === lost);
  expect(failed).toMatchObject({ kind: 'maybe-accepted', willRetry: true });
  expect(failed?.error).toMatch(/not uploaded again in this run \(uploads stopped: .*quota/);
  expect(first.failed.find((x) => x.file === other)).toMatchObject({ kind: 'quota', willRetry: true });
  expect(f.exists(`out/de/${lost}`)).toBe(false);
  return lost;
}

describe('a lost upload answer when uploads stop before it is sent again', () => {
  it('is reported failed as maybe-accepted for the next run, which delivers it', async () => {
    fx = await lostThenQuota();
    const lost = expectLostMaybeAccepted(fx, await fx.sync({ concurrency: 1 }));

    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(second.translated).toBe(2);
    expect(fx.exists('out/de/a.txt') && fx.exists('out/de/b.txt')).toBe(true);
    // The lost one: the document whose answer was lost, and the one delivered.
    expect(
      uploadsOf(fx)
        .filter((r) => r.upload?.filename === lost)
        .map((r) => r.status),
    ).toEqual([0, 200]);
  }, 60_000);

  it('is reported maybe-accepted also when uploads stop after its turn came, while it waits for a place', async () => {
    fx = await lostThenQuota();
    // The other document holds the one place and its upload is answered (456) only after the lost
    // answer's pause ran out: the repeat's turn has come, and it waits for that place (as on a
    // loaded machine, where the other upload takes longer than the pause).
    const real = fx.client();
    let calls = 0;
    const slowSecond: DocumentClient = {
      uploadDocument: async (file, request) => {
        if (++calls === 2) await sleep(LOST_ANSWER_PAUSE_MS + 1000);
        return real.uploadDocument(file, request);
      },
      getDocumentStatus: (id, key) => real.getDocumentStatus(id, key),
      downloadDocument: (id, key, out, o) => real.downloadDocument(id, key, out, o),
    };
    expectLostMaybeAccepted(fx, await fx.sync({ concurrency: 1, client: slowSecond }));
    // Two uploads: the one whose answer was lost and the other's; no repeat.
    expect(
      fx.service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document'),
    ).toHaveLength(2);

    const second = await fx.sync();
    expect(second.failed).toEqual([]);
    expect(fx.exists('out/de/a.txt') && fx.exists('out/de/b.txt')).toBe(true);
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

describe('an upload the service took, whose call then ended with an error no rule knows', () => {
  it('is listed as possibly billed and uploaded again in the same run, never taken as surely not billed', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'The service takes it; the call then fails in a way nobody foresaw.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    const real = fx.client();
    let calls = 0;
    const odd: DocumentClient = {
      uploadDocument: async (file, request, o) => {
        const answer = await real.uploadDocument(file, request, o);
        if (++calls === 1) throw new TypeError("Cannot read properties of undefined (reading 'document_id')");
        return answer;
      },
      getDocumentStatus: (id, key, o) => real.getDocumentStatus(id, key, o),
      downloadDocument: (id, key, out, o) => real.downloadDocument(id, key, out, o),
    };
    const s = await fx.sync({ client: odd });
    expect(s.failed).toEqual([]);
    expect(s.unconfirmedUploads).toEqual([expect.objectContaining({ file: 'a.txt', cause: 'lost-answer' })]);
    expect(uploadsOf(fx)).toHaveLength(2);
    expect(fx.exists('out/de/a.txt')).toBe(true);
  }, 60_000);
});
