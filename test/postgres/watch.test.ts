import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/service/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import {
  killWorkers,
  makeSources,
  outputsIn,
  peakInFlight,
  spawnWorker,
  uploads,
  waitFor,
  writePipeline,
  type WorkerProcess,
} from '../helpers/workers.js';

// `locsync watch` on a PostgreSQL state, as real processes on one share (a folder), one database and
// one local service: two watchers see the same files and translate each once; /healthz, /metrics and
// the status page read the shared state.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

const WATCH = ['stability: 0.3', 'shutdown: 2', 'metrics: { host: 127.0.0.1, port: 0 }'];

/** A `locsync watch` worker, and its status page once it is up. */
async function watcher(manifestPath: string): Promise<WorkerProcess & { url: string }> {
  const w = spawnWorker(['watch', '-c', manifestPath], dir);
  await waitFor('the watcher to be up', () => {
    if (w.child.exitCode !== null) throw new Error(`watch exited ${w.child.exitCode}:\n${w.output()}`);
    return w.logLines().some((l) => l.msg === 'watching for changes');
  });
  const url = w.logLines().find((l) => typeof l.url === 'string')!.url as string;
  return { ...w, url };
}

async function stop(w: WorkerProcess): Promise<number | null> {
  w.child.kill('SIGTERM');
  return w.exited;
}

describe.skipIf(!server)('locsync watch on a PostgreSQL state', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pgwatch-'));
    service = await startService({ translateSeconds: 0.5, queueSeconds: 0, workers: 8 });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('two watchers on one share translate every new document once, within the account cap, and show the shared state', async () => {
    const { src, out } = makeSources(dir, 0);
    const manifestPath = writePipeline(dir, {
      dbUrl: db.url,
      serviceUrl: service.url,
      lease: 10,
      concurrency: 2,
      watch: WATCH,
    });
    const a = await watcher(manifestPath);
    const b = await watcher(manifestPath);
    const n = 12;
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `new${i}.txt`), `New document ${i}.\n`);
    const names = Array.from({ length: n }, (_, i) => `new${i}.txt`).sort();
    await waitFor('every output', () => outputsIn(out).length === n, 90_000);
    expect(outputsIn(out)).toEqual(names);
    const up = uploads(service.requests());
    expect(up.map((e) => e.upload?.filename).sort()).toEqual(names);
    expect(peakInFlight(service.requests())).toBeLessThanOrEqual(2);

    // Each watcher's page reads the shared state: both watch runs, nothing failed, the month's bill.
    for (const w of [a, b]) {
      const health = await fetch(`${w.url}/healthz`);
      expect(health.status).toBe(200);
      const page = (await (await fetch(`${w.url}/status.json`)).json()) as {
        status: { state: string; runs: Array<{ command: string; status: string }>; failures: unknown[] };
        month: { total: { billed_characters: number } };
      };
      expect(page.status.state).toContain('postgres://');
      expect(page.status.runs.filter((r) => r.command === 'watch' && r.status === 'running')).toHaveLength(2);
      expect(page.status.failures).toEqual([]);
      expect(page.month.total.billed_characters).toBeGreaterThan(0);
    }
    const status = await runCli(['status', '-c', manifestPath, '--json']);
    const workers = (JSON.parse(status.stdout) as { workers: Array<{ command: string; state: string }> })
      .workers;
    expect(workers.filter((w) => w.command === 'watch' && w.state === 'alive')).toHaveLength(2);

    expect(await stop(a)).toBe(0);
    expect(await stop(b)).toBe(0);
    // Nothing left for a later run: a sync afterwards uploads nothing.
    const after = await runCli(['sync', '-c', manifestPath, '--json'], {
      cwd: dir,
      env: { LOCSYNC_TEST_KEY: 'test-key-123456' },
    });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ uploads: 0, unchanged: n });
  }, 150_000);
});
