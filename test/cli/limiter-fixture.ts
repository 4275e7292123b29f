import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { SyncSummary } from '../../src/sync/summary.js';
import { EXIT } from '../../src/util/errors.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { FAST_POLL_ENV, KEY_ENV, OPS_KEY, type OpsProject } from './ops-fixture.js';

// A sync whose uploads wait in the client's rate limiter (a low requests_per_second), run as a child
// process and stopped while they wait: what the service accepted and what the state recorded.

/** Uploads the service accepted (answered with a document id), by file name. */
export function accepted(project: OpsProject): Record<string, number> {
  const n: Record<string, number> = {};
  for (const r of project.service.requests())
    if (r.method === 'POST' && r.path === '/v2/document' && r.upload?.document_id)
      n[r.upload.filename] = (n[r.upload.filename] ?? 0) + 1;
  return n;
}

/** Jobs whose upload's answer (document id) the state has recorded. */
export function recordedIds(project: OpsProject): number {
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

export function setRate(project: OpsProject, rps: number): void {
  const manifest = fs.readFileSync(project.manifest, 'utf8');
  fs.writeFileSync(
    project.manifest,
    manifest.replace(/requests_per_second: .*/, `requests_per_second: ${rps}`),
  );
}

export interface SyncChild {
  /** Resolves once the first upload's answer is recorded in the state (throws after ~30 s). */
  firstRecorded(): Promise<void>;
  signal(sig: NodeJS.Signals): void;
  /** How it exited; `killed` when the guard had to end it (SIGKILL after `guardMs`). */
  exited: Promise<{ code: number | null; killed: boolean }>;
  stdout(): string;
  stderr(): string;
}

/** `sync -c <manifest> <args>` as a child process, killed (SIGKILL) if still running after `guardMs`. */
export function syncChild(project: OpsProject, args: string[], guardMs = 600_000): SyncChild {
  const env: NodeJS.ProcessEnv = { ...process.env, ...FAST_POLL_ENV, [KEY_ENV]: OPS_KEY, NO_COLOR: '1' };
  delete env.CI;
  const child = spawn(process.execPath, [...CLI_ARGS, 'sync', '-c', project.manifest, ...args], {
    cwd: project.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let killed = false;
  const guard = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, guardMs);
  const exited = new Promise<{ code: number | null; killed: boolean }>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, killed });
    }),
  );
  return {
    async firstRecorded() {
      for (let i = 0; i < 600 && recordedIds(project) < 1; i++) await sleep(50);
      if (recordedIds(project) < 1) throw new Error(`no upload was recorded: ${stderr}`);
    },
    signal: (sig) => child.kill(sig),
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** Longer than a run stopped by a signal may take: one still there has waited out its limiter. */
export const GUARD_MS = 60_000;

/** The run stopped by the signal exited by itself with 130, its summary an interrupted run's. */
export async function interrupted(run: SyncChild): Promise<void> {
  const { code, killed } = await run.exited;
  expect(killed, run.stderr()).toBe(false);
  expect(code, run.stderr()).toBe(EXIT.interrupted);
  const summary = JSON.parse(run.stdout()) as SyncSummary;
  expect(summary.interrupted).toBe(true);
  expect(summary.failed).toEqual([]);
  expect(summary.unconfirmedUploads).toEqual([]);
}

/**
 * `sync` as a child process (guarded by GUARD_MS) whose first request to `path` the service refuses
 * for now (503, surely not taken), to be retried after 30 s: resolves once that refusal was answered.
 */
export async function refusedForNow(project: OpsProject, path: string): Promise<SyncChild> {
  fs.writeFileSync(
    project.manifest,
    fs.readFileSync(project.manifest, 'utf8').replace(/max_wait: .*/, 'max_wait: 60'),
  );
  project.service.addFaults({ match: { method: 'POST', path }, status: 503, count: 1, retryAfter: 30 });
  const run = syncChild(project, ['--json', '--no-progress'], GUARD_MS);
  const sent = () => project.service.requests().filter((r) => r.path === path);
  for (let i = 0; i < 600 && sent().length === 0; i++) await sleep(50);
  expect(
    sent().map((r) => r.status),
    run.stderr(),
  ).toEqual([503]);
  return run;
}

/** `status` lists nothing as possibly billed twice. */
export async function nothingPossiblyBilledTwice(project: OpsProject): Promise<void> {
  const status = await project.cli(['status', '--json', '--no-scan']);
  expect(status.code, status.stderr).toBe(0);
  expect((JSON.parse(status.stdout) as { possibly_billed_twice: unknown[] }).possibly_billed_twice).toEqual(
    [],
  );
}

/**
 * The next `sync` (no rate limit to speak of) after the stopped one: it ends well, nothing is listed
 * as possibly billed twice (summary, status), and every output (German) is written.
 */
export async function nextSyncEndsWell(project: OpsProject, files: readonly string[]): Promise<void> {
  setRate(project, 1000);
  const run = await project.cli(['sync', '--json']);
  expect(run.code, run.stderr).toBe(EXIT.ok);
  const summary = JSON.parse(run.stdout) as SyncSummary;
  expect(summary.failed).toEqual([]);
  expect(summary.unconfirmedUploads).toEqual([]);
  for (const f of files) expect(fs.existsSync(path.join(project.dir, 'out/de', f)), f).toBe(true);
  await nothingPossiblyBilledTwice(project);
}

/**
 * nextSyncEndsWell, and each document was accepted by the service exactly once over both runs (its
 * request log and its own documents).
 */
export async function nextSyncUploadsEachOnce(project: OpsProject, files: readonly string[]): Promise<void> {
  await nextSyncEndsWell(project, files);
  expect(accepted(project)).toEqual(Object.fromEntries(files.map((f) => [f, 1])));
  expect(project.documentKeys()).toHaveLength(files.length);
}
