import fs from 'node:fs';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresState } from '../../src/state/postgres/store.js';
import { createSyncEvents } from '../../src/sync/events.js';
import type { DocumentClient } from '../../src/sync/run/document-method.js';
import type { TextClient } from '../../src/sync/segments/segment-job.js';
import { segmentsMapping, textRequests } from '../segments/helpers.js';
import { createFixture, onPostgres, type Fixture } from './fixture.js';

// A PostgreSQL worker that stalls past its lease while its upload is under way (a blocked event
// loop, a paused machine) and comes back after another worker took the job over: its answer is not
// written over the other worker's job, it stops driving the job (not a failure), and the repeat the
// other worker makes is counted once, as possibly billed twice (docs/operations.md).

let fx: Fixture | undefined;
let other: PostgresState | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
  await fx?.close();
  fx = undefined;
});

/** The worker `taker` takes the open job over: the stalled worker's lease has run out. */
async function takeOver(taker: PostgresState): Promise<void> {
  await taker.pool.query(`UPDATE work_claims SET lease_until = clock_timestamp() - interval '1 second'`);
  const [open] = await taker.jobs.open();
  expect(await taker.jobs.take(open!)).toHaveProperty('job');
}

/**
 * A sync through the stalling client. Once it has left its job (or, without the fence, finished it)
 * the stale worker is stopped as by a signal: a sync waits for the work other live workers hold, and
 * the taker's claim is only given back when it closes, after which the stale run could rightly take
 * the job up once more. Stopped, it neither waits nor takes anything up again; the taker closes
 * after it ended.
 */
async function staleSync(f: Fixture, client: DocumentClient, taker: PostgresState) {
  const events = createSyncEvents();
  const stop = new AbortController();
  events.on('job:left', () => stop.abort());
  events.on('job:done', () => stop.abort());
  const stale = await f.sync({ client, events, signal: stop.signal });
  await taker.close();
  other = undefined;
  return stale;
}

describe.skipIf(!onPostgres)('a worker that stalled past its lease during an upload', () => {
  it('leaves the job to the worker that took it over: its answer is listed, not recorded, and the repeat counted once', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Uploaded by a worker that stalls.\n' },
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    const url = (parse(fs.readFileSync(fx.manifestPath, 'utf8')) as { state: string }).state;
    const real = fx.client();
    const taker = await PostgresState.open({ url }, { worker: { command: 'sync', leaseSeconds: 30 } });
    other = taker;
    const stalling: DocumentClient = {
      uploadDocument: async (file, request, opts) => {
        // The options passed on: the upload is recorded as it leaves, as by the service client.
        const answer = await real.uploadDocument(file, request, opts);
        // Before the answer is recorded the worker stalls past its lease, and another takes over.
        await takeOver(taker);
        return answer;
      },
      getDocumentStatus: (id, key) => real.getDocumentStatus(id, key),
      downloadDocument: (id, key, out, o) => real.downloadDocument(id, key, out, o),
    };

    const stale = await staleSync(fx, stalling, taker);
    expect(stale.failed).toEqual([]);
    expect(stale.elsewhere).toBe(1);
    const documentId = fx.uploads()[0]?.document_id;
    expect(stale.unconfirmedUploads).toEqual([
      { mapping: 'docs', file: 'a.txt', target: 'de', cause: 'taken-over', documentId },
    ]);
    expect(fx.exists('out/de/a.txt')).toBe(false);
    // The job is as the worker that took it over found it (upload started, answer unknown): the
    // next worker uploads it again, counted once.
    const next = await fx.sync();
    expect(next.failed).toEqual([]);
    expect(fx.read('out/de/a.txt')).toMatch(/^\[de\] /);
    expect(fx.uploads()).toHaveLength(2);
    const { state, close } = await fx.open();
    try {
      const [job] = await state.jobs.doneOfSource('docs', 'a.txt');
      expect(job).toMatchObject({ status: 'done', unconfirmed_uploads: 1, attempts: 2 });
    } finally {
      await close();
    }
  });
});

describe.skipIf(!onPostgres)('a worker that stalled past its lease while its segments were answered', () => {
  it('leaves the delivered job to the worker that took it over, without failing its run', async () => {
    fx = await createFixture({
      files: { 'a.txt': 'Translated segment by segment by a worker that stalls.\n' },
      manifest: { mappings: [segmentsMapping()] },
    });
    const url = (parse(fs.readFileSync(fx.manifestPath, 'utf8')) as { state: string }).state;
    const real = fx.client();
    const taker = await PostgresState.open({ url }, { worker: { command: 'sync', leaseSeconds: 30 } });
    other = taker;
    const stalling: DocumentClient & TextClient = {
      uploadDocument: (file, request, opts) => real.uploadDocument(file, request, opts),
      getDocumentStatus: (id, key) => real.getDocumentStatus(id, key),
      downloadDocument: (id, key, out, o) => real.downloadDocument(id, key, out, o),
      translateText: async (request, opts) => {
        const answer = await real.translateText(request, opts);
        // The answer is remembered (the segment memory is no job's), but before the job is recorded
        // done the worker stalls past its lease and another one takes the job over.
        await takeOver(taker);
        return answer;
      },
    };
    // The record of it done is refused: the job is the other worker's, not a failure of this run.
    const stale = await staleSync(fx, stalling, taker);
    expect(stale.failed).toEqual([]);
    expect(stale.elsewhere).toBe(1);
    expect(textRequests(fx)).toHaveLength(1);
    // The next worker takes the segments from the memory: nothing is sent again.
    const next = await fx.sync();
    expect(next.failed).toEqual([]);
    expect(fx.read('out/de/a.txt')).toMatch(/^\[de\] /);
    expect(textRequests(fx)).toHaveLength(1);
  });
});
