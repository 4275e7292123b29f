import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/state/lock.js';
import type { SyncSummary } from '../../src/sync/summary.js';
import { runCli } from '../helpers/cli.js';
import { API_KEY, createFixture, type Fixture } from './fixture.js';

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
    expect(fs.statSync(path.join(fx.dir, '.locsync', 'state.db')).mode & 0o777).toBe(0o600);
    expect(r.stderr).not.toMatch(/document_key"\s*:\s*"[^[]/);
    expect(fs.existsSync(path.join(fx.dir, '.locsync', 'state.db.lock'))).toBe(false);

    const bad = await runCli(['sync', '-c', fx.manifestPath, '--only', 'nope'], { env, timeoutMs: 120_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no mapping named nope');
  });

  it('refuses to run while another process holds the state, naming it (exit 1)', async () => {
    fx = await createFixture({ files: { 'a.txt': 'A.\n' } });
    const lock = acquireLock(path.join(fx.dir, '.locsync', 'state.db'));
    try {
      const r = await runCli(['sync', '-c', fx.manifestPath], { env, timeoutMs: 120_000 });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`process ${process.pid} on ${os.hostname()}`);
      expect(fx.uploads()).toEqual([]);
    } finally {
      lock.release();
    }
  });
});
