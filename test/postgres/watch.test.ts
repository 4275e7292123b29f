import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { pgForTests } from '../helpers/postgres.js';
import {
  makeSources,
  outputsIn,
  peakInFlight,
  startWatcher,
  stopWorkerProcess,
  TEST_WATCH,
  uploads,
  waitFor,
  watchBench,
  writePipeline,
} from '../helpers/workers.js';

// `locsync watch` on a PostgreSQL state, as real processes on one share (a folder), one database and
// one local service: two watchers see the same files and translate each once; /healthz, /metrics and
// the status page read the shared state.

const server = await pgForTests();

describe.skipIf(!server)('locsync watch on a PostgreSQL state', () => {
  const t = watchBench(server);

  it('two watchers on one share translate every new document once, within the account cap, and show the shared state', async () => {
    const { src, out } = makeSources(t.dir, 0);
    const manifestPath = writePipeline(t.dir, {
      dbUrl: t.db.url,
      serviceUrl: t.service.url,
      lease: 10,
      concurrency: 2,
      watch: TEST_WATCH,
    });
    const a = await startWatcher(manifestPath, t.dir);
    const b = await startWatcher(manifestPath, t.dir);
    const n = 12;
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(src, `new${i}.txt`), `New document ${i}.\n`);
    const names = Array.from({ length: n }, (_, i) => `new${i}.txt`).sort();
    await waitFor('every output', () => outputsIn(out).length === n, 90_000);
    expect(outputsIn(out)).toEqual(names);
    const up = uploads(t.service.requests());
    expect(up.map((e) => e.upload?.filename).sort()).toEqual(names);
    expect(peakInFlight(t.service.requests())).toBeLessThanOrEqual(2);

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

    expect(await stopWorkerProcess(a)).toBe(0);
    expect(await stopWorkerProcess(b)).toBe(0);
    // Nothing left for a later run: a sync afterwards uploads nothing.
    const after = await runCli(['sync', '-c', manifestPath, '--json'], {
      cwd: t.dir,
      env: { LOCSYNC_TEST_KEY: 'test-key-123456' },
    });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ uploads: 0, unchanged: n });
  }, 150_000);
});
