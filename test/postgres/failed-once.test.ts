import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { killWorkers, makeSources, spawnWorker, uploads, writePipeline } from '../helpers/workers.js';

// Several `locsync sync` processes started together on one pipeline (real processes, real HTTP,
// real PostgreSQL), the local service answering 4 of the 16 sources untranslated (billed, failing
// the output checks): each failed output is bought once for the whole pipeline. Every worker
// planned all 16; the worker that took a failed output first quarantines it, and the others, coming
// to it with their older plans, find it failed since then right before they would send it.

const server = await pgForTests();

const N = 16;
/** The sources the service answers untranslated: names no other source's name ends with. */
const FAILING = ['doc6.txt', 'doc7.txt', 'doc8.txt', 'doc9.txt'];

let dir: string;
let service: RunningService;
let db: TestDatabase;

describe.skipIf(!server)('4 PostgreSQL workers and outputs that fail the checks', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-failed-once-'));
    service = await startService({
      translateSeconds: 0.3,
      queueSeconds: 0,
      workers: 16,
      faults: FAILING.map((name) => ({
        badOutput: 'untranslated' as const,
        badOutputFor: name,
        badOutputs: 100,
      })),
    });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('each failed output is bought once, the other outputs once, and every worker says so', async () => {
    const { out } = makeSources(dir, N);
    const manifestPath = writePipeline(dir, {
      dbUrl: db.url,
      serviceUrl: service.url,
      lease: 10,
      concurrency: 4,
    });
    const workers = [1, 2, 3, 4].map(() => spawnWorker(['sync', '-c', manifestPath, '--json'], dir));
    const codes = await Promise.all(workers.map((w) => w.exited));
    const shown = workers.map((w) => w.output()).join('\n');

    // Counted at the service: every source uploaded once, the failing ones too.
    const perFile = new Map<string, number>();
    for (const u of uploads(service.requests()))
      perFile.set(u.upload!.filename, (perFile.get(u.upload!.filename) ?? 0) + 1);
    expect(Object.fromEntries(perFile), shown).toEqual(
      Object.fromEntries(Array.from({ length: N }, (_, i) => [`doc${i}.txt`, 1])),
    );
    // The failed outputs were not delivered; the others were.
    for (let i = 0; i < N; i++)
      expect(fs.existsSync(path.join(out, `doc${i}.txt`))).toBe(!FAILING.includes(`doc${i}.txt`));
    // One failed job per failed output in the state, and none bought twice.
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    try {
      const failed = await check.query<{ rel_path: string; n: number }>(
        `SELECT rel_path, count(*)::int AS n FROM jobs WHERE error_kind = 'qa-failed' GROUP BY rel_path ORDER BY rel_path`,
      );
      expect(failed.rows).toEqual([...FAILING].sort().map((rel_path) => ({ rel_path, n: 1 })));
      const billedTwice = await check.query(`SELECT 1 FROM jobs WHERE unconfirmed_uploads > 0`);
      expect(billedTwice.rows).toEqual([]);
    } finally {
      await check.end();
    }
    // Each worker's summary names each failed output once: as failed (the worker that bought it,
    // and those that planned it again once it had failed: not bought again, `--retry-failed-qa`
    // does), or as not sent (the worker that found it failed right before sending it); none lists
    // a repeat as possibly billed twice. A worker with failed outputs exits 1.
    const summaries = workers.map((w) => lastJson(w.output()));
    for (const [i, s] of summaries.entries()) {
      const named = [...s.failed.map((f) => f.file), ...(s.notSent ?? []).map((x) => x.file)];
      expect(new Set(named).size, shown).toBe(named.length);
      for (const f of named) expect(FAILING).toContain(f);
      expect(s.unconfirmedUploads).toEqual([]);
      expect(codes[i]).toBe(s.failed.length > 0 ? 1 : 0);
    }
    expect(new Set(summaries.flatMap((s) => s.failed.map((f) => f.file)))).toEqual(new Set(FAILING));
  }, 180_000);
});

interface Summary {
  failed: Array<{ file: string }>;
  notSent?: Array<{ file: string; why: string }>;
  unconfirmedUploads: unknown[];
}

/** The summary a `sync --json` printed last (indented JSON, between the log's one-line objects). */
function lastJson(output: string): Summary {
  const start = output.lastIndexOf('{\n  "runId"');
  const end = output.indexOf('\n}', start);
  return JSON.parse(output.slice(start, end + 2)) as Summary;
}
