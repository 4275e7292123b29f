import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT } from '../helpers/cli.js';
import { emulateTerminal } from '../helpers/terminal-screen.js';
import { FAST_POLL_ENV, jsonLines, KEY_ENV, OPS_KEY, opsProject, type OpsProject } from './ops-fixture.js';

// The live view needs a terminal: `script` (util-linux; Debian's bsdutils) gives the CLI a
// pseudo-terminal. Ctrl-C is tested piped, where it must still say what was left, as a log line.

const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;
const ESC = '\x1b';
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function runScript(
  cmd: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...FAST_POLL_ENV, [KEY_ENV]: OPS_KEY, ...extra };
  delete env.CI;
  delete env.NO_COLOR;
  return env;
}

/**
 * `locsync sync` piped, interrupted with SIGINT once `ready(stderr)` holds (or it ended first):
 * its exit code and output.
 */
async function syncInterrupted(
  p: OpsProject,
  ready: (stderr: string) => boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'sync', '-c', p.manifest], {
    cwd: p.dir,
    env: childEnv({ CI: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const reached = new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (ready(stderr)) resolve();
    });
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  await Promise.race([reached, closed]);
  child.kill('SIGINT');
  const code = await closed;
  return { code, stdout, stderr };
}

describe('progress view and Ctrl-C', () => {
  let p: OpsProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it.skipIf(!HAS_SCRIPT)(
    'on a terminal, sync draws the live view with per-file lines for long jobs',
    async () => {
      p = await opsProject({ service: { translateSeconds: 1 } });
      p.write('a.txt', 'First document.\n');
      p.write('b.txt', 'Second document.\n');
      const cmd = [process.execPath, ...CLI_ARGS, 'sync', '-c', p.manifest].map(shellQuote).join(' ');
      // Asynchronous: the service answering the child runs in this process.
      const r = await runScript(
        cmd,
        p.dir,
        childEnv({ LOCSYNC_PROGRESS_LONG_JOB_MS: '200', COLUMNS: '200' }),
      );
      const out = r.stdout;
      expect(r.code).toBe(0);
      // The view: its counters, redrawn in place (cursor up, each line blanked), a line per long job.
      // Totals per phase out of the 4 outputs (2 files x 2 languages), and the bytes and billing.
      expect(out).toMatch(/2 files +upload \d\/4 +translate \d\/4 +download \d\/4 +\d+%/);
      expect(out).toMatch(
        /uploading \d +at the service \d +downloading \d +waiting \d +reused 0 +.*failed 0/,
      );
      expect(out).toMatch(/billed [\d,]+ characters +downloaded \d+ B/);
      expect(out).toMatch(new RegExp(`${ESC}\\[\\d+A(${ESC}\\[\\d+B)?${ESC}\\[2K`));
      expect(out).toMatch(/docs\/a\.txt -> (de|fr): (waiting on the service|uploading|downloading)/);
      // Then the summary, the view erased and the cursor shown again.
      expect(out).toMatch(/2 source files; outputs: 4 translated, 0 reused, 0 unchanged, 0 stale, 0 failed/);
      expect(out).toMatch(/Billed: [\d,]+ characters for 4 uploads, in \d+s/);
      expect(out).toContain('\x1b[?25h');
    },
    120_000,
  );

  it.skipIf(!HAS_SCRIPT)(
    "the samples' sync fits in under 40 lines at the default log level, log lines one line each",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-samples-'));
      try {
        fs.cpSync(path.join(ROOT, 'samples'), path.join(dir, 'samples'), { recursive: true });
        // Everything the example manifest refers to beside the samples.
        for (const d of ['styles', 'glossaries'])
          if (fs.existsSync(path.join(ROOT, d)))
            fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
        fs.copyFileSync(path.join(ROOT, 'pipeline.example.yaml'), path.join(dir, 'pipeline.yaml'));
        const cmd = `stty cols 100 rows 40; ${[process.execPath, ...CLI_ARGS, 'sync'].map(shellQuote).join(' ')}`;
        const r = await runScript(cmd, dir, childEnv({}));
        expect(r.code).toBe(0);
        const { scrollback, rows } = emulateTerminal(r.stdout, { columns: 100, rows: 40 });
        const screen = [...scrollback, ...rows];
        expect(screen.length).toBeLessThan(40);
        expect(screen.join('\n')).toMatch(/14 source files; outputs: 42 translated/);
        // Every number of the summary is formatted.
        expect(screen.join('\n')).toMatch(/Billed: \d{3},\d{3} characters for 42 uploads/);
        // While it ran, the view was redrawn in place and never wider than the terminal.
        const frames = r.stdout
          .split(/\r?\n/)
          .map((l) => l.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g'), ''));
        expect(frames.filter((l) => /upload \d+\/42/.test(l)).length).toBeGreaterThan(0);
        for (const l of frames) expect(l.replace(/\r/g, '').length).toBeLessThanOrEqual(100);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );

  it.skipIf(!HAS_SCRIPT)(
    'in an 80-column terminal every frame fits, the ETA is never cut, names are shortened and money is shown (issue 29)',
    async () => {
      p = await opsProject({
        service: { translateSeconds: 0.4 },
        manifest: { billing: { price_per_million: 25, currency: 'EUR' } },
      });
      // Twelve files: the summary's first line would be 81 columns long unwrapped.
      for (let i = 0; i < 12; i++)
        p.write(
          `a-folder-with-a-long-name/and-another-one-below-it/document-number-${i}-with-a-long-name.txt`,
          `Document number ${i}, long enough to be billed a few dozen characters.\n`,
        );
      const cmd = `stty cols 80 rows 30; ${[process.execPath, ...CLI_ARGS, 'sync', '-c', p.manifest].map(shellQuote).join(' ')}`;
      const r = await runScript(cmd, p.dir, childEnv({ LOCSYNC_PROGRESS_LONG_JOB_MS: '0' }));
      expect(r.code).toBe(0);
      const frames = r.stdout
        .split(/\r?\n/)
        .map((l) => l.replace(new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, 'g'), '').replace(/\r/g, ''));
      for (const l of frames) expect([...l].length, l).toBeLessThanOrEqual(80);
      const heads = frames.filter((l) => /^locsync \d+/.test(l) && /\/24/.test(l));
      expect(heads.length).toBeGreaterThan(0);
      // The share done ends the line, with the whole estimate once there is one.
      for (const h of heads) expect(h).toMatch(/ (\d+%|–)( {2}ETA \d+(s|m\d\ds|h\d\dm))?$/);
      expect(heads.some((h) => / {2}ETA \d/.test(h))).toBe(true);
      expect(frames.some((l) => /^ {2}billed [\d,]+ characters \((€[\d.]+|< €0\.01)\)/.test(l))).toBe(true);
      expect(frames.some((l) => /^ {2}docs\/a-folder.*….*\.txt -> (de|fr): /.test(l))).toBe(true);
      // Redrawn in place: tmux sees no full-screen clear, so no frame lands in the scrollback.
      const screen = emulateTerminal(r.stdout, { columns: 80, rows: 30 });
      expect(screen.fullClears).toBe(0);
      expect(screen.scrollback.filter((l) => /^locsync \d+/.test(l))).toEqual([]);
      expect(r.stdout).not.toMatch(new RegExp(`${ESC}\\[[0-3]?J|${ESC}\\[[0-9;]*H|${ESC}c`));
      // The summary wraps between words: no word cut at the 80th column.
      const shown = [...screen.scrollback, ...screen.rows].join('\n');
      expect(shown).toMatch(/24 translated, 0 reused, 0 unchanged, 0 stale,( 0)?\n {4}(0 )?failed\n/);
      expect(shown).toMatch(/^Billed: [\d,]+ characters .*for 24 uploads/m);
    },
    120_000,
  );

  it('Ctrl-C without a terminal logs the jobs in flight and how to resume; the rerun uploads nothing twice', async () => {
    p = await opsProject({ service: { translateSeconds: 4 } });
    p.write('a.txt', 'First document.\n');
    p.write('b.txt', 'Second document.\n');
    const { stdout, stderr } = await syncInterrupted(
      p,
      (err) => (err.match(/"msg":"uploaded"/g) ?? []).length >= 2,
    );
    expect(stdout + stderr).not.toContain('\x1b');
    const lines = jsonLines(stderr);
    const left = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('Stopping: no new uploads'));
    expect(left).toBeDefined();
    expect(left!.msg).toContain(`locsync sync -c ${p.manifest}\` resumes them`);
    expect(left!.msg).toContain('nothing uploaded is paid twice');
    const inFlight = left!.in_flight as Array<{ file: string; document_id?: string; state: string }>;
    expect(inFlight.length).toBeGreaterThanOrEqual(2);
    expect(inFlight.filter((j) => j.document_id).length).toBeGreaterThanOrEqual(2);

    // Resume: every (file, target) is uploaded once over both runs.
    const again = await p.cli(['sync', '-c', p.manifest]);
    expect(again.code).toBe(0);
    const uploads = p.service.requests().filter((q) => q.upload?.document_id);
    const units = new Set(uploads.map((q) => `${q.upload!.filename}:${q.upload!.target_lang}`));
    expect(units.size).toBe(4);
    expect(uploads).toHaveLength(4);
  }, 120_000);

  it('Ctrl-C with an upload in flight: the upload is awaited and recorded, sync exits 130, status exits 0, the rerun uploads nothing twice', async () => {
    // Translations take longer than the grace (1 s): documents are surely waiting at the signal. Every
    // upload is answered only 2.5 s after it was sent: the one started before Ctrl-C is in flight.
    p = await opsProject({ service: { translateSeconds: 3 }, manifest: { watch: { shutdown: 1 } } });
    p.write('a.txt', 'First document.\n');
    p.write('b.txt', 'Second document.\n');
    p.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, latencyMs: 2500 });
    const { code, stdout, stderr } = await syncInterrupted(p, (err) => err.includes('"msg":"uploading"'));
    expect(code).toBe(130);
    p.service.clearFaults();
    // No error line per job; one closing line says what was left and how to resume.
    expect(jsonLines(stderr).filter((l) => l.level === 50)).toEqual([]);
    expect(stdout).toMatch(
      /^Interrupted: \d+ outputs left for the next run.*run the same command again to resume\.$/m,
    );
    expect(stdout).not.toMatch(/failed:/);

    // Every upload the service answered is recorded with its id; none is left unanswered.
    const answered = p.service
      .requests()
      .filter((q) => q.method === 'POST' && q.path === '/v2/document' && q.upload?.document_id);
    expect(answered.length).toBeGreaterThan(0);
    const db = new Database(path.join(p.dir, '.locsync/state.db'), { readonly: true });
    const jobs = db
      .prepare<
        [],
        { status: string; document_id: string | null; upload_started_at: string | null; error: string | null }
      >('SELECT status, document_id, upload_started_at, error FROM jobs')
      .all();
    db.close();
    const recorded = new Set(jobs.map((j) => j.document_id));
    for (const q of answered) expect(recorded).toContain(q.upload!.document_id);
    expect(jobs.filter((j) => j.upload_started_at && !j.document_id)).toEqual([]);
    expect(jobs.filter((j) => j.error !== null || j.status === 'failed')).toEqual([]);

    const status = await p.cli(['status', '-c', p.manifest, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      failures: [],
      last_outcome: { command: 'sync', status: 'interrupted', reason: 'signal' },
    });

    const again = await p.cli(['sync', '-c', p.manifest]);
    expect(again.code).toBe(0);
    const uploads = p.service.requests().filter((q) => q.upload?.document_id);
    const units = uploads.map((q) => `${q.upload!.filename}:${q.upload!.target_lang}`);
    expect(new Set(units).size).toBe(4);
    expect(units).toHaveLength(4);
  }, 120_000);
});
