import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { opsProject, type OpsProject } from './ops-fixture.js';

// `sync --plan plan.json` is held to the approved plan for the whole run, not only at its start: a
// source rewritten while the run waits (here: its upload queued in the rate limiter behind the
// first one) is not uploaded at its new size; the run refuses it, naming the file, and exits 1.
// Real CLI as a child process, real local service, real state file.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

describe('sync --plan while the run goes on', () => {
  it('refuses to upload a source rewritten after the plan was approved, naming it', async () => {
    p = await opsProject({
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    const project = p;
    // One request every 2 s: the second upload waits in the rate limiter after the first left.
    const yaml = fs.readFileSync(project.manifest, 'utf8');
    fs.writeFileSync(project.manifest, yaml.replace('requests_per_second: 1000', 'requests_per_second: 0.5'));
    project.write('a.txt', 'The first document.\n');
    project.write('b.txt', 'The second document.\n');
    expect((await project.cli(['plan', '-out', 'plan.json'])).code).toBe(0);
    const uploads = () =>
      project.service.requests().filter((r) => r.method === 'POST' && r.path === '/v2/document' && r.upload);
    const run = project.cli(['sync', '--plan', 'plan.json']);
    while (uploads().length === 0) await sleep(5);
    const other = uploads()[0]?.upload?.filename === 'a.txt' ? 'b.txt' : 'a.txt';
    // 54 KB where the plan priced a sentence.
    project.write(other, 'A rewritten, much longer document.\n'.repeat(1500));
    const result = await run;

    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `failed: docs/${other} -> de: src/${other} is not what the approved plan plan\\.json priced .*not uploaded; make a new plan`,
      ),
    );
    // Only what the plan priced was sent: one upload, of a sentence.
    expect(uploads().map((r) => r.upload?.filename)).toEqual([other === 'a.txt' ? 'b.txt' : 'a.txt']);
    expect(uploads().every((r) => (r.upload?.bytes ?? 0) < 100)).toBe(true);
  }, 120_000);
});
