import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { FAST_POLL_ENV, KEY_ENV, OPS_KEY, opsProject, type OpsProject } from './ops-fixture.js';

// An upload is recorded as started when it leaves, once the rate limits let it go: a sync killed
// (kill -9) while an upload still waits in the client's rate limiter has sent nothing for it, so the
// next run uploads it once and lists nothing as possibly billed twice. Over real HTTP (the local
// service on port 0), a real state file and the CLI as a child process.

let p: OpsProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const FILES = ['a.txt', 'b.txt', 'c.txt'];

/** Uploads the service accepted (answered with a document id), by file name. */
function accepted(project: OpsProject): Record<string, number> {
  const n: Record<string, number> = {};
  for (const r of project.service.requests())
    if (r.method === 'POST' && r.path === '/v2/document' && r.upload?.document_id)
      n[r.upload.filename] = (n[r.upload.filename] ?? 0) + 1;
  return n;
}

/** Jobs whose upload's answer (document id) the state has recorded. */
function recordedIds(project: OpsProject): number {
  const file = path.join(project.dir, '.locsync/state.db');
  if (!fs.existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM jobs WHERE document_id IS NOT NULL')
      .get()!.n;
  } catch {
    return 0; // not made yet
  } finally {
    db.close();
  }
}

function setRate(project: OpsProject, rps: number): void {
  const manifest = fs.readFileSync(project.manifest, 'utf8');
  fs.writeFileSync(
    project.manifest,
    manifest.replace(/requests_per_second: .*/, `requests_per_second: ${rps}`),
  );
}

/** `sync` as a child process, killed (SIGKILL) `settleMs` after it recorded its first upload's answer. */
async function killedAfterFirstUpload(project: OpsProject, settleMs: number): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...FAST_POLL_ENV, [KEY_ENV]: OPS_KEY, NO_COLOR: '1' };
  delete env.CI;
  const child = spawn(process.execPath, [...CLI_ARGS, 'sync', '-c', project.manifest, '--no-progress'], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (let i = 0; i < 600 && recordedIds(project) < 1; i++) await sleep(50);
    expect(Object.keys(accepted(project)), stderr).toHaveLength(1);
    expect(recordedIds(project), stderr).toBe(1);
    await sleep(settleMs);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

describe('a sync killed while an upload waits in the rate limiter', () => {
  it('lists nothing as possibly billed twice; the next run uploads what never left, once', async () => {
    p = await opsProject({
      manifest: {
        mappings: [{ name: 'docs', source: 'src', output: 'out/{lang}/{path}', targets: [{ lang: 'de' }] }],
      },
    });
    for (const f of FILES) p.write(f, `The text of ${f}.\n`);
    // One request every 1,000 seconds: the first upload leaves at once, the second waits in the rate
    // limiter (two worker places) until the run is killed; it never reaches the service.
    setRate(p, 0.001);
    await killedAfterFirstUpload(p, 1000);
    const first = accepted(p);
    expect(Object.values(first)).toEqual([1]);
    expect(p.service.requests().filter((r) => r.path === '/v2/document')).toHaveLength(1);

    setRate(p, 1000);
    const run = await p.cli(['sync', '--json']);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    const summary = JSON.parse(run.stdout) as SyncSummary;
    expect(summary.failed).toEqual([]);
    // Nothing the killed run sent was left without its answer.
    expect(summary.unconfirmedUploads).toEqual([]);
    for (const f of FILES) expect(fs.existsSync(path.join(p.dir, 'out/de', f)), f).toBe(true);
    // Each document accepted exactly once: the service's request log and its own documents.
    expect(accepted(p)).toEqual({ 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
    expect(p.documentKeys()).toHaveLength(FILES.length);

    const status = await p.cli(['status', '--json', '--no-scan']);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { possibly_billed_twice: unknown[] }).possibly_billed_twice).toEqual(
      [],
    );
    const report = await p.cli(['report']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).not.toContain('Possibly billed twice');
  }, 120_000);
});
