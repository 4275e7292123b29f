import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { killWorkers, spawnWorker, uploads, WORKER_KEY_ENV } from '../helpers/workers.js';

// The monthly budget with several workers on one PostgreSQL state: four `sync --only mN` workers,
// each of whose work fits the month's cap alone but not all four together, against a service whose
// uploads are slow (so that every worker starts before any bill is known). Each upload reserves its
// estimate in the database first: what is billed stays within the cap, and the workers refused
// list the work they left with exit 5.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

const MAPPINGS = ['m1', 'm2', 'm3', 'm4'];
const DOCS_PER_MAPPING = 4;

describe.skipIf(!server)('the monthly budget with several workers', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-pgbudget-'));
    service = await startService({ translateSeconds: 0.3, queueSeconds: 0, workers: 16 });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('four workers against per_month with slow uploads: billed within the cap, the refused work listed, exit 5', async () => {
    // Each document bills its characters (the text without the final newline): 60 each.
    const text = (m: string, i: number) => `${m} document ${i}: `.padEnd(60, 'x') + '\n';
    for (const m of MAPPINGS) {
      fs.mkdirSync(path.join(dir, 'src', m), { recursive: true });
      for (let i = 0; i < DOCS_PER_MAPPING; i++)
        fs.writeFileSync(path.join(dir, 'src', m, `doc${i}.txt`), text(m, i));
    }
    const perMapping = 60 * DOCS_PER_MAPPING;
    // Any one worker's work fits; the four together are twice the cap.
    const cap = perMapping * 2;
    const manifest = path.join(dir, 'pipeline.yaml');
    fs.writeFileSync(
      manifest,
      [
        `state: ${db.url}`,
        'postgres:',
        '  lease_seconds: 10',
        'service:',
        `  url: ${service.url}`,
        `  key_env: ${WORKER_KEY_ENV}`,
        '  concurrency: 8',
        '  max_undownloaded: 8',
        '  requests_per_second: 200',
        'budget:',
        `  per_month: ${cap}`,
        'mappings:',
        ...MAPPINGS.flatMap((m) => [
          `  - name: ${m}`,
          `    source: src/${m}`,
          `    output: out/${m}/{path}`,
          '    targets: [{ lang: de }]',
        ]),
        '',
      ].join('\n'),
    );
    // Slow uploads: every worker has planned and begun before the first bill is known.
    service.addFaults({ match: { method: 'POST', path: '/v2/document' }, latencyMs: 700 });
    const workers = MAPPINGS.map((m) => spawnWorker(['sync', '-c', manifest, '--only', m], dir));
    const codes = await Promise.all(workers.map((w) => w.exited));
    const outputOf = workers.map((w) => w.output()).join('\n----\n');

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const billed = (
      await c.query<{ n: number }>(`SELECT COALESCE(SUM(billed_characters), 0)::int AS n FROM jobs`)
    ).rows[0]!.n;
    await c.end();
    // Within the cap: estimates equal bills for text, so no difference to allow for.
    expect(billed, outputOf).toBeLessThanOrEqual(cap);
    expect(uploads(service.requests()).length * 60).toBeLessThanOrEqual(cap);
    // The cap was used, not left idle: only what did not fit was refused.
    expect(billed).toBeGreaterThan(cap - 60 * 4);

    expect(
      codes.every((code) => code === 0 || code === 5),
      outputOf,
    ).toBe(true);
    const refused = workers.filter((_, i) => codes[i] === 5);
    expect(refused.length, outputOf).toBeGreaterThan(0);
    for (const w of refused) {
      const out = w.output();
      expect(out).toContain('budget reached during the run');
      expect(out).toContain('budget.per_month');
      // The work it left is listed by file, each once, and counted once ("12 failed" for 4 before).
      expect(out).toMatch(/ {2}failed: m\d\/doc\d\.txt -> de: /);
      const listed = out.split('\n').filter((l) => l.startsWith('  failed: '));
      expect(new Set(listed).size, out).toBe(listed.length);
      expect(out).toContain(`, ${listed.length} failed`);
    }
  }, 180_000);
});
