import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CLI_ARGS, ROOT, runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, type Fixture } from '../sync/fixture.js';
import { waitFor, watchManifest } from './helpers.js';

// `locsync watch` as a user runs it: a child process, stopped with SIGTERM.

let fx: Fixture | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await fx?.close();
  fx = undefined;
});

interface Watch {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

function startWatch(manifestPath: string): Watch {
  const child = spawn(process.execPath, [...CLI_ARGS, 'watch', '-c', manifestPath], {
    cwd: ROOT,
    env: {
      ...process.env,
      NO_COLOR: '1',
      LOCSYNC_TEST_WATCH_KEY: API_KEY,
      LOCSYNC_POLL_INITIAL_MS: '50',
      LOCSYNC_POLL_MIN_MS: '20',
      LOCSYNC_POLL_MAX_MS: '200',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

function logLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('locsync watch (child process)', () => {
  it('refuses a broken manifest at start with its file and line (exit 2)', async () => {
    fx = await createFixture();
    fs.writeFileSync(fx.manifestPath, 'version: 1\nmappings:\n  - name: docs\n    sorce: src\n');
    const r = await runCli(['watch', '-c', fx.manifestPath], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${fx.manifestPath}:`);
  });

  it('serves /healthz and /metrics; SIGTERM during uploads loses nothing and a restart finishes every job', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`doc${i}.txt`] = `Document number ${i}.\n`;
    fx = await createFixture({ files, service: { translateSeconds: 1, workers: 8 } });
    const f = fx;
    fs.writeFileSync(
      f.manifestPath,
      stringify(
        watchManifest(f.service.url, {
          service: {
            url: f.service.url,
            key_env: 'LOCSYNC_TEST_WATCH_KEY',
            concurrency: 4,
            requests_per_second: 1000,
            retry: { max_attempts: 4, max_wait: 5 },
          },
          watch: { shutdown: 1, metrics: { host: '127.0.0.1', port: 0 } },
        }),
      ),
    );
    const outputs = Object.keys(files).flatMap((n) => ['de', 'fr'].map((l) => `out/${l}/${n}`));
    // Two 429 answers to uploads: retried by the client, counted in the metrics.
    f.service.addFaults({
      match: { method: 'POST', path: '/v2/document' },
      status: 429,
      count: 2,
      retryAfter: 0,
    });

    const first = startWatch(f.manifestPath);
    await waitFor('metrics url in the log', () =>
      logLines(first.stderr()).some((l) => typeof l.url === 'string'),
    );
    const url = logLines(first.stderr()).find((l) => typeof l.url === 'string')!.url as string;
    expect(new URL(url).hostname).toBe('127.0.0.1');
    await waitFor('some uploads', () => f.uploads().length >= 4, 30_000);
    const health = (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ ok: true });
    expect(health.queue_depth).toBeGreaterThan(0);
    expect(typeof health.uptime_seconds).toBe('number');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^locsync_uploads_total [1-9]/m);
    expect(metrics).toMatch(/^locsync_retries_total\{method="POST"\} [1-9]/m);
    expect(metrics).toMatch(/^locsync_queue_depth [1-9]/m);
    expect(metrics).toContain('locsync_last_successful_poll_timestamp_seconds');

    expect(outputs.every((o) => f.exists(o))).toBe(false);
    // Status checks and downloads now take longer than the shutdown grace, so documents are surely
    // in flight at the signal (without this, a fast machine may finish them all within the grace);
    // uploads are answered only after the grace, and the signal comes once one of them has started:
    // an upload in flight at the signal must be awaited and its id recorded, never cut (the service
    // has it and bills it; the next start would upload it again).
    f.service.addFaults({ match: { path: '/v2/document/' }, latencyMs: 4000 });
    f.service.addFaults({ match: { method: 'POST', path: '/v2/document' }, latencyMs: 2500 });
    const uploadingBefore = uploadingLines(first.stderr());
    await waitFor('an upload started', () => uploadingLines(first.stderr()) > uploadingBefore, 30_000);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    f.service.clearFaults();
    const firstLog = logLines(first.stderr());
    expect(firstLog.filter((l) => l.level === 'error' || l.level === 50)).toEqual([]);
    // One closing line says what was left for the next start.
    const stopped = firstLog.find((l) => typeof l.msg === 'string' && l.msg.startsWith('stopped'));
    expect(stopped?.msg).toMatch(/^stopped: \d+ outputs left for the next start/);
    expect(stopped?.left_uploaded).toBeGreaterThan(0);
    const uploadedBefore = f.uploads();
    expect(uploadedBefore.length).toBeLessThan(outputs.length);
    // Every upload the service answered is recorded with its id; no upload is left unanswered.
    const st = f.openState();
    const open = st.openJobs();
    const recordedIds = new Set(
      [...open, ...st.doneJobs()].map((j) => j.document_id).filter((id): id is string => !!id),
    );
    st.close();
    for (const u of uploadedBefore) expect(recordedIds).toContain(u.document_id);
    expect(open.filter((j) => j.status === 'pending' && j.upload_started_at && !j.document_id)).toEqual([]);
    // Documents in flight at the signal are recorded with their id (and key) for the next start,
    // and nothing is listed as failed. SIGTERM is how a watch ends (README): its session is recorded
    // as stopped, not as an interruption.
    expect(open.filter((j) => j.status === 'uploaded' && j.document_id).length).toBeGreaterThan(0);
    expect(open.filter((j) => j.error !== null)).toEqual([]);
    const status = await runCli(['status', '-c', f.manifestPath, '--json'], { timeoutMs: 30_000 });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      failures: [],
      last_outcome: { command: 'watch', status: 'stopped' },
    });

    const second = startWatch(f.manifestPath);
    await waitFor('every output after the restart', () => outputs.every((o) => f.exists(o)), 60_000);
    const h2 = async () =>
      (await (await fetch(`${logUrl(second.stderr())}/healthz`)).json()) as {
        queue_depth: number;
        last_successful_poll: string | null;
        last_outcome: Record<string, unknown> | null;
      };
    await waitFor('metrics url of the second run', () => logUrl(second.stderr()) !== undefined);
    const h = await h2();
    expect(h.last_successful_poll).not.toBeNull();
    // The restart says how the previous stop went, and what to do about it.
    expect(h.last_outcome).toMatchObject({ command: 'watch', status: 'stopped' });
    expect(h.last_outcome!.reason ?? null).toBeNull();
    expect(h.last_outcome!.advice).toMatch(/starts it again; documents it left at the service are collected/);
    const m2 = await (await fetch(`${logUrl(second.stderr())}/metrics`)).text();
    expect(m2).toMatch(/^locsync_last_run_outcome\{command="watch",status="stopped",reason="none"\} 1$/m);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    expect(second.stderr()).not.toMatch(/earlier run was stopped between uploading/);
    const uploads = f.uploads();
    const keys = uploads.map((u) => `${u.sha256}:${u.target_lang}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(outputs.length);
  }, 90_000);
});

/** "uploading" log lines so far (an upload is about to be sent). */
function uploadingLines(text: string): number {
  return logLines(text).filter((l) => l.msg === 'uploading').length;
}

function logUrl(text: string): string | undefined {
  return logLines(text).find((l) => typeof l.url === 'string')?.url as string | undefined;
}
