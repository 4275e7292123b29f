import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/api/client.js';
import { openRunState } from '../../src/cli/open-state.js';
import { silentLogger } from '../../src/log/logger.js';
import { loadManifest } from '../../src/manifest/load.js';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { createPool } from '../../src/state/postgres/connect.js';
import { migrate } from '../../src/state/postgres/migrate.js';
import { PgRunLog } from '../../src/state/postgres/runs.js';
import { PgSegmentClaims } from '../../src/state/postgres/segment-claims.js';
import { registerWorker, stopWorker } from '../../src/state/postgres/workers.js';
import { runSync, type SyncOptions } from '../../src/sync/engine.js';
import { createSyncEvents } from '../../src/sync/events.js';
import { holdingProxy, type HoldingProxy } from '../helpers/holding-proxy.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { FAST_POLL } from '../sync/fixture.js';
import {
  killWorkers,
  spawnWorker,
  textBilled as textBilledIn,
  waitFor,
  writePipeline,
  type WorkerProcess,
} from '../helpers/workers.js';

// Two `locsync sync` processes of one pipeline on PostgreSQL, method: segments, translating two
// documents that share paragraphs at the same moment (real processes, real HTTP, real PostgreSQL;
// the local service's request log is what was billed): each shared paragraph is sent, and paid
// for, once. The first worker's text request is held on the wire by a proxy while the second
// worker starts on the other document; when that worker is killed instead, the other takes its
// paragraphs over. And the claims themselves: a live worker's are left to it, a dead or stopped
// worker's are taken over.

const server = await pgForTests();

const SHARED = ['The shared safety notice comes first.', 'The shared warranty text closes every manual.'];
const ALPHA = 'Alpha manual covers the first machine.';
const BETA = 'Beta manual covers the second machine.';
const manual = (own: string) => `${SHARED[0]}\n${own}\n${SHARED[1]}\n`;

let dir: string;
let service: RunningService;
let proxy: HoldingProxy;
let db: TestDatabase;
/** Whether the proxy holds the requests with the Alpha paragraph. */
let holding: boolean;

/** Characters the service billed for text requests (what the account pays). */
const textBilled = () => textBilledIn(service.requests());

describe.skipIf(!server)('segments on several PostgreSQL workers', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-segworkers-'));
    service = await startService({ translateSeconds: 0, queueSeconds: 0 });
    // The first worker's request (the one with the Alpha paragraph) waits until the test lets it go.
    holding = true;
    proxy = await holdingProxy(service.url, (body) => holding && body.includes(ALPHA));
    db = await createTestDatabase(server!);
    fs.mkdirSync(path.join(dir, 'src'));
  });
  afterEach(async () => {
    killWorkers();
    await proxy.close();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Worker 1 sending a.txt (its request held at the proxy), then b.txt written; workers of a lease of
   * `lease` seconds, two documents at the service at once.
   */
  async function firstSending(lease: number): Promise<{ manifestPath: string; first: WorkerProcess }> {
    const manifestPath = writePipeline(dir, {
      dbUrl: db.url,
      serviceUrl: proxy.url,
      lease,
      concurrency: 2,
      method: 'segments',
    });
    fs.writeFileSync(path.join(dir, 'src', 'a.txt'), manual(ALPHA));
    const first = spawnWorker(['sync', '-c', manifestPath], dir);
    await waitFor('the first worker to send a.txt', () => proxy.held().length === 1, 60_000, first.output);
    fs.writeFileSync(path.join(dir, 'src', 'b.txt'), manual(BETA));
    return { manifestPath, first };
  }

  /** The same, and worker 2 started. */
  async function bothSending(lease: number): Promise<[WorkerProcess, WorkerProcess]> {
    const { manifestPath, first } = await firstSending(lease);
    return [first, spawnWorker(['sync', '-c', manifestPath], dir)];
  }

  /** A worker of the pipeline run in this process (its run's options set by the test). */
  async function syncHere(manifestPath: string, options: SyncOptions, events = createSyncEvents()) {
    const loaded = await loadManifest(manifestPath);
    const opened = await openRunState(loaded, { logger: silentLogger(), command: 'sync', drives: true });
    try {
      const client = new ServiceClient({ baseUrl: proxy.url, apiKey: 'test-key-123456' });
      return await runSync({
        loaded,
        connection: { client },
        state: opened.state,
        logger: silentLogger(),
        events,
        options,
      });
    } finally {
      await opened.close();
    }
  }

  it('two workers translating documents that share paragraphs send each shared paragraph once', async () => {
    const [first, second] = await bothSending(10);
    // The second worker's own paragraph is answered while the first's request is still held: both
    // documents are being translated at the same moment.
    await waitFor('the second worker to send b.txt', () => textBilled() > 0, 60_000, second.output);
    await proxy.release();
    const codes = await Promise.all([first.exited, second.exited]);
    expect(codes, `${first.output()}\n${second.output()}`).toEqual([0, 0]);

    const distinct = [...SHARED, ALPHA, BETA].reduce((n, t) => n + [...t].length, 0);
    expect(textBilled()).toBe(distinct);
    const a = fs.readFileSync(path.join(dir, 'out', 'a.txt'), 'utf8').split('\n');
    const b = fs.readFileSync(path.join(dir, 'out', 'b.txt'), 'utf8').split('\n');
    expect(a).toHaveLength(4);
    expect([a[0], a[2]]).toEqual([b[0], b[2]]);
    expect(a[0]).not.toBe(SHARED[0]);
    expect(b[1]).not.toBe(BETA);
  }, 120_000);

  it('a worker killed while it sends shared paragraphs: the other takes them over once its lease ran out', async () => {
    const [first, second] = await bothSending(5);
    await waitFor('the second worker to send b.txt', () => textBilled() > 0, 60_000, second.output);
    // Its request never reaches the service: only the second worker's are billed (a.txt's
    // too, which it takes over).
    first.child.kill('SIGKILL');
    await first.exited;
    holding = false;
    expect(await second.exited, second.output()).toBe(0);

    // Its own paragraph first; the shared ones only once the killed worker's claims were taken over.
    const sent = service.requests().filter((e) => e.path === '/v2/translate' && e.status === 200);
    expect(sent[0]?.text?.characters).toBe([...BETA].length);

    const distinct = [...SHARED, ALPHA, BETA].reduce((n, t) => n + [...t].length, 0);
    expect(textBilled()).toBe(distinct);
    for (const f of ['a.txt', 'b.txt']) {
      const lines = fs.readFileSync(path.join(dir, 'out', f), 'utf8').split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).not.toBe(SHARED[0]);
    }
  }, 120_000);

  it('a worker whose wait for shared paragraphs a live worker is sending runs out fails the document for now; the next run finishes it', async () => {
    const { manifestPath, first } = await firstSending(10);
    // The wait's limit (5 minutes by default) set to nothing: the first look that finds the shared
    // paragraphs still held by the live first worker gives up on them.
    const events = createSyncEvents();
    const gaveUp = new Promise<void>((resolve) => events.on('job:failed', () => resolve()));
    const second = syncHere(manifestPath, { poll: { ...FAST_POLL, segmentStallMs: 0 } }, events);
    await gaveUp;
    // Its own paragraph was sent before it gave up; the shared ones it did not send.
    expect(textBilled()).toBe([...BETA].length);
    await proxy.release();
    const run = await second;
    expect(await first.exited, first.output()).toBe(0);
    expect(run.failed.map((f) => [f.file, f.kind, f.willRetry])).toEqual([['b.txt', 'transient', true]]);
    expect(run.failed[0]?.error).toContain('got no answer for a long time; sent by the next run');

    // The next run (or the first worker, which takes open work up before it ends) finds every
    // paragraph of b.txt in the memory: it writes it and sends nothing.
    const next = await syncHere(manifestPath, { poll: FAST_POLL });
    expect(next.failed).toEqual([]);
    const distinct = [...SHARED, ALPHA, BETA].reduce((n, t) => n + [...t].length, 0);
    expect(textBilled()).toBe(distinct);
    const a = fs.readFileSync(path.join(dir, 'out', 'a.txt'), 'utf8').split('\n');
    const b = fs.readFileSync(path.join(dir, 'out', 'b.txt'), 'utf8').split('\n');
    expect([b[0], b[2]]).toEqual([a[0], a[2]]);
    expect(b[1]).not.toBe(BETA);
  }, 120_000);
});

describe.skipIf(!server)('segment claims of the workers of a pipeline', () => {
  /** A migrated state of its own, and a way to register a worker on it. */
  async function withWorkers(
    fn: (pool: ReturnType<typeof createPool>, worker: () => Promise<string>) => Promise<void>,
  ): Promise<void> {
    const db = await createTestDatabase(server!);
    const pool = createPool({ url: db.url });
    try {
      await migrate(pool, db.url);
      await fn(pool, () => registerWorker(pool, { command: 'sync', leaseSeconds: 30 }));
    } finally {
      await pool.end();
      await db.drop();
    }
  }

  it("leaves a live worker's segments to it and takes a dead or stopped worker's over", async () => {
    await withWorkers(async (pool, worker) => {
      const [a, b, c] = await Promise.all([worker(), worker(), worker()]);
      const [byA, byB, byC] = [a, b, c].map((w) => new PgSegmentClaims(pool, w)) as [
        PgSegmentClaims,
        PgSegmentClaims,
        PgSegmentClaims,
      ];
      expect(await byA.claim(['k1', 'k2'])).toEqual(new Map());
      expect(await byB.claim(['k2', 'k3'])).toEqual(new Map([['k2', a]]));
      expect(await byA.heldElsewhere(['k1', 'k2', 'k3'])).toEqual(new Map([['k3', b]]));
      // Given back: free for the next worker.
      await byA.release(['k1']);
      expect(await byC.claim(['k1'])).toEqual(new Map());
      // A dead worker (no beat within its lease): its segments are taken over.
      await pool.query(`UPDATE workers SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [a]);
      expect(await byB.heldElsewhere(['k2'])).toEqual(new Map());
      expect(await byB.claim(['k2'])).toEqual(new Map());
      expect(await byC.heldElsewhere(['k2', 'k3'])).toEqual(
        new Map([
          ['k2', b],
          ['k3', b],
        ]),
      );
      // A worker that stops gives its segments back.
      await stopWorker(pool, b);
      expect(await byC.claim(['k2', 'k3'])).toEqual(new Map());
    });
  });

  it("drops a dead worker's segment claims when the next run starts, and keeps a live worker's", async () => {
    await withWorkers(async (pool, worker) => {
      const [dead, live, next] = await Promise.all([worker(), worker(), worker()]);
      // The dead worker claimed keys nobody asks for again (its document was deleted meanwhile).
      await new PgSegmentClaims(pool, dead).claim(['only-dead-1', 'only-dead-2']);
      await new PgSegmentClaims(pool, live).claim(['live-1']);
      await pool.query(`UPDATE workers SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [dead]);
      const claims = async () =>
        (
          await pool.query<{ key: string; worker_id: string }>(
            'SELECT key, worker_id FROM segment_claims ORDER BY key',
          )
        ).rows;
      expect(await claims()).toHaveLength(3);

      await new PgRunLog(pool, next).start('sync');
      expect(await claims()).toEqual([{ key: 'live-1', worker_id: live }]);
    });
  });
});
