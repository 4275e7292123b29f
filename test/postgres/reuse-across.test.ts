import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { uploads, WORKER_KEY_ENV, writePipeline } from '../helpers/workers.js';

// reuse: across_pipelines. Two pipelines on one database, each in a schema of its own, with the
// same document: when both opted in and their settings match, the second copies the first one's
// translation (nothing uploaded, reported reused, recorded as from the other pipeline); when the
// first did not opt in, when settings differ, or when the first one's output changed since it was
// written, the second uploads as usual.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

interface Pipeline {
  name: string;
  dir: string;
  manifest: string;
  out: string;
}

const TEXT = 'The same manual page in both pipelines, marker 515151.\n';

/** Pipeline `name` in a schema of its own with docs/a.txt (TEXT); `target`: its target instead of de. */
function pipeline(name: string, o: { reuse: boolean; target?: string }): Pipeline {
  const pdir = path.join(dir, name);
  fs.mkdirSync(path.join(pdir, 'src', 'docs'), { recursive: true });
  fs.writeFileSync(path.join(pdir, 'src', 'docs', 'a.txt'), TEXT);
  const dbUrl = `${db.url}?options=-c%20search_path%3D${name}`;
  const manifest = writePipeline(pdir, { dbUrl, serviceUrl: service.url, lease: 5, concurrency: 2 });
  let text = fs.readFileSync(manifest, 'utf8');
  if (o.target) text = text.replace('targets: [{ lang: de }]', `targets: [${o.target}]`);
  if (o.reuse) text += 'reuse: across_pipelines\n';
  fs.writeFileSync(manifest, text);
  return { name, dir: pdir, manifest, out: path.join(pdir, 'out') };
}

const cli = (p: Pipeline, args: string[]) =>
  runCli([...args, '-c', p.manifest], { cwd: p.dir, env: { [WORKER_KEY_ENV]: 'test-key-123456' } });

async function sync(p: Pipeline): Promise<void> {
  const r = await cli(p, ['sync']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

const output = (p: Pipeline) => fs.readFileSync(path.join(p.out, 'docs', 'a.txt'), 'utf8');

async function reusedDocuments(p: Pipeline): Promise<number> {
  const r = await cli(p, ['report', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { total: { reused_documents: number } }).total.reused_documents;
}

describe.skipIf(!server)('reuse: across_pipelines (two pipelines on one PostgreSQL database)', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-reuse-across-'));
    service = await startService({ translateSeconds: 0, queueSeconds: 0 });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('both opted in, same content and settings: the second copies the first one’s translation, uploads nothing, reports it reused from the other pipeline', async () => {
    const alpha = pipeline('alpha', { reuse: true });
    const beta = pipeline('beta', { reuse: true });
    await sync(alpha);
    expect(uploads(service.requests())).toHaveLength(1);
    const r = await cli(beta, ['sync']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(uploads(service.requests())).toHaveLength(1);
    expect(output(beta)).toBe(output(alpha));
    expect(output(beta)).toContain('515151');
    expect(output(beta)).not.toBe(TEXT);
    expect(await reusedDocuments(beta)).toBe(1);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const rows = await c.query(
        `SELECT r.from_pipeline, j.billed_characters FROM beta.reused_across r JOIN beta.jobs j ON j.id = r.job_id`,
      );
      expect(rows.rows).toEqual([{ from_pipeline: 'alpha', billed_characters: '0' }]);
    } finally {
      await c.end();
    }
    // Nothing was written in alpha's folders.
    expect(fs.readdirSync(path.join(alpha.out, 'docs'))).toEqual(['a.txt']);
  }, 120_000);

  it('uploads as usual when the donor did not opt in, this pipeline did not, settings differ, or the donor’s output changed since it was written', async () => {
    const count = () => uploads(service.requests()).length;
    // p1 did not opt in: p2 (opted in) never reads it.
    const p1 = pipeline('p1', { reuse: false });
    await sync(p1);
    const p2 = pipeline('p2', { reuse: true });
    await sync(p2);
    expect(count()).toBe(2);
    expect(await reusedDocuments(p2)).toBe(0);
    // p3 opted in with other settings (formality): p2's translation is not the same.
    await sync(pipeline('p3', { reuse: true, target: '{ lang: de, formality: more }' }));
    expect(count()).toBe(3);
    // p4 did not opt in: it takes nothing from p2.
    await sync(pipeline('p4', { reuse: false }));
    expect(count()).toBe(4);
    // p2's output edited since it was written: p5 (opted in) does not copy it.
    fs.appendFileSync(path.join(p2.out, 'docs', 'a.txt'), 'edited by hand\n');
    const p5 = pipeline('p5', { reuse: true });
    await sync(p5);
    expect(count()).toBe(5);
    expect(output(p5)).not.toContain('edited by hand');
    expect(await reusedDocuments(p5)).toBe(0);
  }, 180_000);
});
