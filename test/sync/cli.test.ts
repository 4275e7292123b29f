import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, lockPathFor, processStartTicks } from '../../src/state/lock.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, onPostgres, type Fixture } from './fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const env = { LOCSYNC_TEST_SYNC_KEY: API_KEY, LOCSYNC_POLL_INITIAL_MS: '30', LOCSYNC_POLL_MAX_MS: '150' };

describe('locsync sync (command)', () => {
  it('translates, prints a JSON summary, keeps the state private, exits 0; unknown --only exits 2', async () => {
    fx = await createFixture({ files: { 'a file.txt': 'Hello.\n' } });
    const r = await runCli(['sync', '-c', fx.manifestPath, '--json'], { env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as SyncSummary;
    expect(s.translated).toBe(2);
    expect(fx.exists('out/de/a file.txt')).toBe(true);
    expect(r.stderr).not.toMatch(/document_key"\s*:\s*"[^[]/);
    if (!onPostgres) {
      expect(fs.statSync(path.join(fx.dir, '.locsync', 'state.db')).mode & 0o777).toBe(0o600);
      expect(fs.existsSync(path.join(fx.dir, '.locsync', 'state.db.lock'))).toBe(false);
    }

    const bad = await runCli(['sync', '-c', fx.manifestPath, '--only', 'nope'], { env, timeoutMs: 120_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no mapping named nope');
  });

  // state.db's lock: a PostgreSQL state has none (its workers share the work: test/postgres).
  it.skipIf(onPostgres)(
    'refuses to run while another process holds the state, naming it (exit 4)',
    async () => {
      fx = await createFixture({ files: { 'a.txt': 'A.\n' } });
      const lock = acquireLock(path.join(fx.dir, '.locsync', 'state.db'));
      try {
        const r = await runCli(['sync', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
        expect(r.code).toBe(4);
        expect(r.stderr).toContain(`process ${process.pid} on ${os.hostname()}`);
        expect(fx.uploads()).toEqual([]);
      } finally {
        lock.release();
      }
    },
  );

  // state.db's lock: a PostgreSQL state has none (its workers share the work: test/postgres).
  it.skipIf(onPostgres)(
    'takes over a lock whose pid now belongs to an unrelated live process (after a reboot, or reused)',
    async () => {
      fx = await createFixture({ files: { 'a.txt': 'A.\n' } });
      const statePath = path.join(fx.dir, '.locsync', 'state.db');
      fs.mkdirSync(path.dirname(statePath), { recursive: true });
      // An unrelated process that is alive while the lock names its pid.
      const other = spawn('sleep', ['60'], { stdio: 'ignore' });
      try {
        const pid = other.pid!;
        const cases = [
          // Written before this boot (the machine rebooted and the pid was handed out again).
          {
            pid,
            host: os.hostname(),
            started_at: new Date(Date.now() - (os.uptime() + 3600) * 1000).toISOString(),
            boot_id: 'a-boot-before-this-one',
          },
          // This boot, but the pid's process started at another time than the owner did.
          {
            pid,
            host: os.hostname(),
            started_at: new Date().toISOString(),
            pid_start: (processStartTicks(pid) ?? 0) + 1,
          },
        ];
        for (const owner of cases) {
          fs.writeFileSync(lockPathFor(statePath), JSON.stringify(owner));
          const r = await runCli(['sync', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).toContain('taking over a stale state lock');
          expect(fs.existsSync(lockPathFor(statePath))).toBe(false);
        }
        expect(fx.exists('out/de/a.txt')).toBe(true);
        expect(other.exitCode).toBeNull();
      } finally {
        other.kill();
      }
    },
  );

  it('prints a file name holding a newline or an escape sequence escaped, one line per entry (summary, status)', async () => {
    fx = await createFixture({
      files: { 'two\nlines.txt': 'A.\n', 'red\u001b[31m.txt': 'B.\n' },
      service: { faults: [{ errorDocuments: 4 }] },
    });
    const r = await runCli(['sync', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
    expect(r.code).toBe(1);
    const failed = r.stdout.split('\n').filter((l) => l.startsWith('  failed: '));
    expect(failed).toHaveLength(4);
    expect(r.stdout).toContain('  failed: docs/two\\nlines.txt -> de: ');
    expect(r.stdout).toContain('  failed: docs/red\\u{1b}[31m.txt -> fr: ');
    expect(r.stdout).not.toMatch(/^lines\.txt/m);
    expect(r.stdout).not.toContain('\u001b');

    const status = await runCli(['status', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
    expect(status.stdout).toContain('docs/two\\nlines.txt -> de');
    expect(status.stdout).not.toMatch(/^lines\.txt/m);
    expect(status.stdout).not.toContain('\u001b');
  });
});
