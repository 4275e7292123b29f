import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import {
  killWorkers,
  peakInFlight,
  spawnWorker,
  uploads,
  waitFor,
  WORKER_KEY_ENV,
  writePipeline,
} from '../helpers/workers.js';

// Two pipelines (their own manifests, folders and sources, overlapping relative paths with
// different contents) on one PostgreSQL database: a state holds one pipeline, so the second one
// pointed at the same schema is refused naming both; in a schema of its own it never sees, takes
// over or writes the first one's work, even after a kill -9; the account's limits hold for both.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

interface Pipeline {
  name: string;
  dir: string;
  manifest: string;
  out: string;
  /** Relative paths of its sources, and the marker each one's text carries (digits survive translation). */
  files: Map<string, string>;
}

/** A pipeline in folder `name` (its default pipeline name): docs/a.txt and `n` more, each with its marker. */
function pipeline(name: string, dbUrl: string, n: number, marker: number): Pipeline {
  const pdir = path.join(dir, name);
  const files = new Map<string, string>();
  for (const rel of ['docs/a.txt', ...Array.from({ length: n }, (_, i) => `docs/${name}${i}.txt`)]) {
    const m = String(marker + files.size);
    fs.mkdirSync(path.join(pdir, 'src', 'docs'), { recursive: true });
    fs.writeFileSync(path.join(pdir, 'src', rel), `Pipeline ${name} document, marker ${m}.\n`);
    files.set(rel, m);
  }
  const manifest = writePipeline(pdir, { dbUrl, serviceUrl: service.url, lease: 5, concurrency: 2 });
  return { name, dir: pdir, manifest, out: path.join(pdir, 'out'), files };
}

/** Every file under `out` (relative paths). */
function outputs(out: string): string[] {
  if (!fs.existsSync(out)) return [];
  return (fs.readdirSync(out, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.txt'))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/** Its outputs are exactly its sources', each the translation of its own source (its marker). */
function expectOwnOutputs(p: Pipeline, other: Pipeline): void {
  expect(outputs(p.out)).toEqual([...p.files.keys()].sort());
  for (const [rel, marker] of p.files) {
    const text = fs.readFileSync(path.join(p.out, rel), 'utf8');
    expect(text, `${p.name}/${rel}`).toContain(marker);
    for (const m of other.files.values()) expect(text, `${p.name}/${rel}`).not.toContain(m);
  }
}

const sync = (p: Pipeline) => spawnWorker(['sync', '-c', p.manifest], p.dir);
const cli = (p: Pipeline, args: string[]) =>
  runCli([...args, '-c', p.manifest], { cwd: p.dir, env: { [WORKER_KEY_ENV]: 'test-key-123456' } });

describe.skipIf(!server)('two pipelines on one PostgreSQL database', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pipelines-'));
    service = await startService({ translateSeconds: 1.5, queueSeconds: 0, workers: 16 });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the second on the same schema is refused naming both; in its own schema neither sees, takes over or writes the other’s work, across a kill -9', async () => {
    const alpha = pipeline('alpha', db.url, 3, 111100);
    const beta = pipeline('beta', db.url, 4, 222200);
    const check = new pg.Client({ connectionString: db.url });
    await check.connect();
    try {
      // alpha is killed holding uploaded documents (both places taken: no upload half-way).
      const victim = sync(alpha);
      await waitFor(
        'alpha to hold two uploaded documents',
        async () => {
          const r = await check
            .query(
              `SELECT count(*) FILTER (WHERE status = 'uploaded' AND document_id IS NOT NULL)::int AS up,
                      count(*) FILTER (WHERE status = 'pending' AND upload_started_at IS NOT NULL)::int AS sending
               FROM jobs`,
            )
            .catch(() => ({ rows: [{ up: 0, sending: 1 }] }));
          return r.rows[0].up >= 2 && r.rows[0].sending === 0;
        },
        60_000,
        victim.output,
      );
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Math.max(-1, ...service.requests().map((e) => e.seq));

      // beta on alpha's schema: refused before it records or uploads anything, both named.
      const refused = await cli(beta, ['sync']);
      expect(refused.code, refused.stdout + refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`belongs to pipeline "alpha" (manifest ${alpha.manifest}`);
      expect(refused.stderr).toContain(`this manifest ${beta.manifest} is pipeline "beta"`);
      expect(refused.stderr).toContain(`state: ${db.url}?options=-c%20search_path%3Dbeta`);
      for (const cmd of [['status'], ['report']]) {
        const r = await cli(beta, cmd);
        expect(r.code, cmd.join(' ')).toBe(2);
        expect(r.stderr).toContain('belongs to pipeline "alpha"');
      }
      expect(outputs(beta.out)).toEqual([]);

      // beta in a schema of its own, alongside alpha's next worker (which takes alpha's work over).
      const betaUrl = `${db.url}?options=-c%20search_path%3Dbeta`;
      fs.writeFileSync(beta.manifest, fs.readFileSync(beta.manifest, 'utf8').replace(db.url, betaUrl));
      const workers = [sync(alpha), sync(beta)];
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes, workers.map((w) => w.output()).join('\n')).toEqual([0, 0]);

      expectOwnOutputs(alpha, beta);
      expectOwnOutputs(beta, alpha);
      // No upload repeated: every source content uploaded once, across both pipelines.
      const up = uploads(service.requests());
      const bySha = new Map<string, number>();
      for (const e of up) bySha.set(e.upload!.sha256, (bySha.get(e.upload!.sha256) ?? 0) + 1);
      expect(up).toHaveLength(alpha.files.size + beta.files.size);
      expect([...bySha.values()].every((n) => n === 1)).toBe(true);
      // One account, one limit: never more than its concurrency in flight for both pipelines together
      // (the documents the killed worker left are collected, not counted: the service finished them).
      expect(peakInFlight(service.requests(), killedAt)).toBeLessThanOrEqual(2);
      expect(peakInFlight(service.requests(), killedAt)).toBeGreaterThan(0);

      // Each pipeline's report and status show only its own.
      for (const [p, other] of [
        [alpha, beta],
        [beta, alpha],
      ] as const) {
        const report = await cli(p, ['report', '--json']);
        expect(report.code, report.stderr).toBe(0);
        const billed = (f: Map<string, string>, o: Pipeline) =>
          [...f.keys()].reduce(
            (sum, rel) => sum + fs.readFileSync(path.join(o.dir, 'src', rel), 'utf8').trim().length,
            0,
          );
        const total = (
          JSON.parse(report.stdout) as { total: { documents: number; billed_characters: number } }
        ).total;
        expect(total.documents, p.name).toBe(p.files.size);
        expect(total.billed_characters, p.name).toBe(billed(p.files, p));
        expect(total.billed_characters, p.name).not.toBe(billed(other.files, other));
        const status = await cli(p, ['status', '--json']);
        const data = JSON.parse(status.stdout) as { runs: unknown[]; workers: unknown[] };
        expect(data.runs, p.name).toHaveLength(p === alpha ? 2 : 1);
        expect(data.workers, p.name).toHaveLength(p === alpha ? 2 : 1);
      }
    } finally {
      await check.end();
    }
  }, 180_000);

  it('a state made before pipelines were recorded is adopted by the first manifest; another is then refused', async () => {
    const alpha = pipeline('alpha', db.url, 0, 333300);
    const beta = pipeline('beta', db.url, 0, 444400);
    const made = await cli(alpha, ['state', 'migrate']);
    expect(made.code, made.stderr).toBe(0);
    // As a state of an earlier locsync: no pipeline recorded.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query('DELETE FROM locsync_pipeline');
    const adopted = await cli(beta, ['state', 'migrate']);
    expect(adopted.code, adopted.stderr).toBe(0);
    expect((await c.query('SELECT name, manifest FROM locsync_pipeline')).rows).toEqual([
      { name: 'beta', manifest: beta.manifest },
    ]);
    await c.end();
    const r = await cli(alpha, ['status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`belongs to pipeline "beta" (manifest ${beta.manifest}`);
  });
});

describe('two manifests on one SQLite state file', () => {
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pipelines-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the second is refused naming both; `pipeline:` names the first one again', async () => {
    const state = path.join(dir, 'shared', 'state.db');
    const write = (name: string, extra = '') => {
      const pdir = path.join(dir, name);
      fs.mkdirSync(path.join(pdir, 'src'), { recursive: true });
      const file = path.join(pdir, 'pipeline.yaml');
      fs.writeFileSync(
        file,
        `${extra}state: ${state}\nmappings:\n  - name: docs\n    source: src\n    output: out/{path}\n    targets: [{ lang: de }]\n`,
      );
      return file;
    };
    const one = write('one');
    const two = write('two');
    expect((await runCli(['state', 'migrate', '-c', one])).code).toBe(0);
    for (const cmd of [['status'], ['sync', '--dry-run'], ['state', 'migrate']]) {
      const r = await runCli([...cmd, '-c', two]);
      expect(r.code, cmd.join(' ')).toBe(2);
      expect(r.stderr).toContain(`the state at ${state} belongs to pipeline "one" (manifest ${one}`);
      expect(r.stderr).toContain(`this manifest ${two} is pipeline "two"`);
    }
    const renamed = write('two', 'pipeline: one\n');
    expect((await runCli(['status', '-c', renamed])).code).toBe(0);
  });
});
