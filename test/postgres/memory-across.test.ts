import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { WORKER_KEY_ENV, writePipeline } from '../helpers/workers.js';

// The segment memory on PostgreSQL (docs/memory.md): each pipeline's is its own, in its schema; with
// `reuse: across_pipelines` on both sides, a pipeline also finds the segments another pipeline's
// memory holds (a TMX that pipeline imported, here), and sends only the rest.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

const TMX = `<?xml version="1.0"?>
<tmx version="1.4"><header srclang="en"/><body>
<tu><tuv xml:lang="en"><seg>The shared approved paragraph.</seg></tuv><tuv xml:lang="de-DE"><seg>Der gemeinsame freigegebene Absatz.</seg></tuv></tu>
</body></tmx>
`;

function pipeline(name: string, reuse: boolean, md: string): { dir: string; manifest: string } {
  const pdir = path.join(dir, name);
  fs.mkdirSync(path.join(pdir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(pdir, 'src', `${name}.md`), md);
  const dbUrl = `${db.url}?options=-c%20search_path%3D${name}`;
  const manifest = writePipeline(pdir, {
    dbUrl,
    serviceUrl: service.url,
    lease: 5,
    concurrency: 2,
    method: 'segments',
  });
  if (reuse) fs.appendFileSync(manifest, 'reuse: across_pipelines\n');
  return { dir: pdir, manifest };
}

async function cli(p: { dir: string; manifest: string }, args: string[]): Promise<string> {
  const r = await runCli([...args, '-c', p.manifest], {
    cwd: p.dir,
    env: { [WORKER_KEY_ENV]: 'test-key-123456' },
  });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.stdout;
}

/** Segments the local service was sent since log position `since`. */
const textsSent = (since: number) =>
  service
    .requests()
    .slice(since)
    .filter((r) => r.path === '/v2/translate' && r.status === 200 && r.text)
    .reduce((n, r) => n + r.text!.texts, 0);

describe.skipIf(!server)('the segment memory across pipelines (PostgreSQL)', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-memory-across-'));
    service = await startService({ translateSeconds: 0, queueSeconds: 0 });
    db = await createTestDatabase(server!);
  });
  afterEach(async () => {
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is a pipeline's own; shared when both say reuse: across_pipelines", async () => {
    const alpha = pipeline('alpha', true, 'Only in alpha.\n');
    await cli(alpha, ['sync']);
    fs.writeFileSync(path.join(alpha.dir, 'm.tmx'), TMX);
    await cli(alpha, ['memory', 'import', 'm.tmx']);

    const doc = 'The shared approved paragraph.\n\nOnly in this one.\n';
    const own = pipeline('gamma', false, doc);
    let mark = service.requests().length;
    await cli(own, ['sync']);
    expect(textsSent(mark)).toBe(2);

    const beta = pipeline('beta', true, doc);
    mark = service.requests().length;
    await cli(beta, ['sync']);
    expect(textsSent(mark)).toBe(1);
    expect(fs.readFileSync(path.join(beta.dir, 'out', 'beta.md'), 'utf8')).toContain(
      'Der gemeinsame freigegebene Absatz.',
    );
  });
});
