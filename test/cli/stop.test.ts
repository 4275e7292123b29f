import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ARGS } from '../helpers/cli.js';
import { FAST_POLL_ENV, KEY_ENV, OPS_KEY, opsProject, type OpsProject } from './ops-fixture.js';

// Ctrl-C as a person presses it: the CLI runs in a pseudo-terminal (`script` from util-linux) and
// gets the byte ^C typed into it, so the terminal sends SIGINT to it as it would on a desk.

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** Longer than any of these tests may wait: a run still there then has waited out the grace. */
const GUARD_MS = 40_000;

interface PtyRun {
  /** Type Ctrl-C into the terminal. */
  ctrlC(): void;
  output(): string;
  /** Exit code; `killed` when the guard had to end it. */
  closed: Promise<{ code: number | null; killed: boolean }>;
}

function syncInPty(p: OpsProject): PtyRun {
  const cmd = `stty cols 120 rows 40; ${[process.execPath, ...CLI_ARGS, 'sync', '-c', p.manifest].map(shellQuote).join(' ')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...FAST_POLL_ENV,
    [KEY_ENV]: OPS_KEY,
    LOCSYNC_PROGRESS_LONG_JOB_MS: '0',
  };
  delete env.CI;
  delete env.NO_COLOR;
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    cwd: p.dir,
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  let killed = false;
  const guard = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, GUARD_MS);
  const closed = new Promise<{ code: number | null; killed: boolean }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, killed });
    }),
  );
  return { ctrlC: () => child.stdin.write('\x03'), output: () => out, closed };
}

async function until(what: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function runsOf(p: OpsProject): Array<{ status: string; reason: string | null }> {
  const db = new Database(path.join(p.dir, '.locsync/state.db'), { readonly: true });
  try {
    return db
      .prepare<[], { status: string; reason: string | null }>('SELECT status, reason FROM runs ORDER BY id')
      .all();
  } finally {
    db.close();
  }
}

const uploadsAnswered = (p: OpsProject) =>
  p.service
    .requests()
    .filter((q) => q.method === 'POST' && q.path === '/v2/document' && q.upload?.document_id);

describe.skipIf(!HAS_SCRIPT)('Ctrl-C in a terminal', () => {
  let p: OpsProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('one Ctrl-C: the view counts down what is in flight, and sync exits once it is done, long before watch.shutdown', async () => {
    // A generous grace (60 s): the run must not wait it out when its documents are done after ~1 s.
    p = await opsProject({ service: { translateSeconds: 1 }, manifest: { watch: { shutdown: 60 } } });
    p.write('a.txt', 'First document.\n');
    p.write('b.txt', 'Second document.\n');
    const run = syncInPty(p);
    await until(() => uploadsAnswered(p!).length >= 2);
    run.ctrlC();
    const { code, killed } = await run.closed;
    expect(killed).toBe(false);
    expect(code).toBe(130);
    // The view said what it waited for, with a countdown from the grace.
    expect(run.output()).toMatch(/Stopping: \d document\(s\) in flight; waiting at most \d+s more/);
    expect(run.output()).toContain('Ctrl-C again: stop waiting for translations');
    expect(run.output()).toMatch(/docs\/a\.txt -> (de|fr): /);
    // What was at the service when Ctrl-C came was collected, not left.
    for (const lang of ['de', 'fr'])
      for (const f of ['a.txt', 'b.txt'])
        if (
          uploadsAnswered(p).some(
            (q) => q.upload!.filename === f && q.upload!.target_lang.toLowerCase() === lang,
          )
        )
          expect(fs.existsSync(path.join(p.dir, 'out', lang, f))).toBe(true);
    expect(runsOf(p).at(-1)).toMatchObject({ status: 'interrupted', reason: 'signal' });
  }, 60_000);

  it('two Ctrl-C: it stops waiting for translations, awaits the upload already sent, records an interrupted run (never a crash); the next run pays nothing twice', async () => {
    // Translations take 8 s: after the second Ctrl-C they are not awaited (collected by the next run).
    p = await opsProject({ service: { translateSeconds: 8 }, manifest: { watch: { shutdown: 60 } } });
    p.write('a.txt', 'First document.\n');
    p.write('b.txt', 'Second document.\n');
    p.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, latencyMs: 1500 });
    const run = syncInPty(p);
    // A job line of the view: an upload is under way (its answer comes 1.5 s later).
    await until(() => /-> (de|fr): uploading/.test(run.output()));
    run.ctrlC();
    await until(() => /Stopping: /.test(run.output()));
    run.ctrlC();
    const { code, killed } = await run.closed;
    expect(killed).toBe(false);
    expect(code).toBe(130);
    expect(run.output()).toContain('not waiting for translations any more');
    p.service.clearFaults();

    // Every upload the service answered is recorded with its id; the run is interrupted, not crashed.
    const answered = uploadsAnswered(p);
    expect(answered.length).toBeGreaterThan(0);
    const db = new Database(path.join(p.dir, '.locsync/state.db'), { readonly: true });
    const jobs = db
      .prepare<[], { document_id: string | null; upload_started_at: string | null }>(
        'SELECT document_id, upload_started_at FROM jobs',
      )
      .all();
    db.close();
    const recorded = new Set(jobs.map((j) => j.document_id));
    for (const q of answered) expect(recorded).toContain(q.upload!.document_id);
    expect(jobs.filter((j) => j.upload_started_at && !j.document_id)).toEqual([]);
    expect(runsOf(p).map((r) => r.status)).toEqual(['interrupted']);
    // Not waited for: nothing was downloaded by this run.
    expect(fs.existsSync(path.join(p.dir, 'out'))).toBe(false);
    const status = await p.cli(['status', '-c', p.manifest, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      last_outcome: { status: 'interrupted', reason: 'signal' },
    });

    // The next run: nothing reported as possibly billed twice, every document uploaded once.
    const again = await p.cli(['sync', '-c', p.manifest]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toMatch(/unconfirmed upload|billed twice/);
    const units = uploadsAnswered(p).map((q) => `${q.upload!.filename}:${q.upload!.target_lang}`);
    expect(new Set(units).size).toBe(units.length);
  }, 90_000);
});
