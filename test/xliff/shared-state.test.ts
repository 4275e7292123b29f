import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../src/local-service/index.js';
import { createTestDatabase, pgForTests, type TestDatabase } from '../helpers/postgres.js';
import { killWorkers, spawnWorker, textBilled, writePipeline } from '../helpers/workers.js';

// A translator's wording imported on one machine of a PostgreSQL state reaches the outputs through
// another machine's plain `sync` (docs/xliff.md): the outputs waiting for it are noted in the
// database, not in the importing machine's local folder. Real processes (each machine a manifest
// of the same pipeline with its own postgres.local_dir), real HTTP, real PostgreSQL.

const server = await pgForTests();

let dir: string;
let service: RunningService;
let db: TestDatabase;

/** Characters the service was sent in text requests. */
const textSent = () => textBilled(service.requests());

/** `locsync <args>` as a user runs it on one of the machines; its exit code and output. */
async function locsync(args: string[]): Promise<{ code: number | null; output: string }> {
  const w = spawnWorker(args, dir);
  const code = await w.exited;
  return { code, output: w.output() };
}

describe.skipIf(!server)('imported wording on a PostgreSQL state of several machines', () => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-xliff-pg-'));
    service = await startService({ translateSeconds: 0, queueSeconds: 0 });
    db = await createTestDatabase(server!);
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/guide.md'), '# Setup\n\nThen fill the tank.\n');
    // Two machines: the same pipeline, each with a local folder of its own.
    for (const machine of ['a', 'b']) {
      const manifest = writePipeline(dir, {
        dbUrl: db.url,
        serviceUrl: service.url,
        lease: 30,
        concurrency: 2,
        method: 'segments',
        name: `${machine}.yaml`,
      });
      const text = fs.readFileSync(manifest, 'utf8');
      fs.writeFileSync(
        manifest,
        text.replace('postgres:\n', `pipeline: manuals\npostgres:\n  local_dir: .machine-${machine}\n`),
      );
    }
  });
  afterEach(async () => {
    killWorkers();
    await service.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("machine b's plain sync writes what machine a imported, sending nothing", async () => {
    const first = await locsync(['sync', '-c', 'a.yaml']);
    expect(first.code, first.output).toBe(0);
    const output = path.join(dir, 'out/guide.md');
    const machineWording = fs.readFileSync(output, 'utf8');

    const exported = await locsync(['xliff', 'export', '-c', 'a.yaml', '--lang', 'de', '-o', 'de.xlf']);
    expect(exported.code, exported.output).toBe(0);
    // The translator's wording of the second paragraph (as a CAT tool writes it back: approved).
    const xlf = path.join(dir, 'de.xlf');
    const xml = fs.readFileSync(xlf, 'utf8');
    const rewritten = xml.replace(
      /(<source>Then fill the tank\.<\/source>\s*<target)[^>]*>[^<]*(<\/target>)/,
      '$1 state="signed-off" approved="yes">Dann den Tank füllen.$2',
    );
    expect(rewritten).not.toBe(xml);
    fs.writeFileSync(xlf, rewritten);
    const imported = await locsync(['xliff', 'import', '-c', 'a.yaml', 'de.xlf']);
    expect(imported.code, imported.output).toBe(0);

    const sent = textSent();
    const second = await locsync(['sync', '-c', 'b.yaml']);
    expect(second.code, second.output).toBe(0);
    const written = fs.readFileSync(output, 'utf8');
    expect(written).toContain('Dann den Tank füllen.');
    expect(written).not.toBe(machineWording);
    expect(textSent()).toBe(sent);
    // Delivered: machine a's next sync has nothing left to write (the output is not written again).
    const at = fs.statSync(output).mtimeMs;
    const third = await locsync(['sync', '-c', 'a.yaml']);
    expect(third.code, third.output).toBe(0);
    expect(fs.statSync(output).mtimeMs).toBe(at);
    // Nothing of it stays on machine a alone.
    expect(fs.existsSync(path.join(dir, '.machine-a/imported-wording.json'))).toBe(false);
  });
});
