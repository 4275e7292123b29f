import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CLI_ARGS, ROOT } from '../helpers/cli.js';
import { hookReceiver, type HookReceiver } from '../helpers/webhook-receiver.js';
import { API_KEY, createFixture, runCliOn, type Fixture } from '../sync/fixture.js';
import { waitFor, watchManifest } from './helpers.js';

// SIGTERM is how a watch ends (README, systemd): a watch stopped with nothing left unfinished is
// recorded as stopped, and then `status` has nothing for the operator to do and no webhook says the
// run was interrupted.

let fx: Fixture | undefined;
let hook: HookReceiver | undefined;
afterEach(async () => {
  await hook?.close();
  hook = undefined;
  await fx?.close();
  fx = undefined;
});

describe('a watch stopped the normal way', () => {
  it('SIGTERM when idle: status prints no "what to do", no run-interrupted webhook', async () => {
    fx = await createFixture({ files: { 'a.txt': 'Translated before the stop.\n' } });
    const f = fx;
    hook = await hookReceiver();
    fs.writeFileSync(
      f.manifestPath,
      stringify(watchManifest(f.service.url, { notify: { webhook: { url: hook.url } } })),
    );
    const child = spawn(process.execPath, [...CLI_ARGS, 'watch', '-c', f.manifestPath], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', LOCSYNC_TEST_SYNC_KEY: API_KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await waitFor('both outputs', () => f.exists('out/de/a.txt') && f.exists('out/fr/a.txt'), 60_000);
      // Recorded done a moment after the outputs land; then the watch is idle.
      await sleep(1500);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);

    const json = await runCliOn(f, 'status', '--json', '--no-scan');
    expect(JSON.parse(json.stdout)).toMatchObject({
      last_outcome: { command: 'watch', status: 'stopped', advice: null },
    });
    const text = await runCliOn(f, 'status', '--no-scan');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/watch .*: stopped/);
    expect(text.stdout).not.toContain('what to do');
    // The webhook is sent before the process exits; give a late one a moment to arrive.
    await sleep(500);
    expect(hook.messages.map((m) => m.event)).not.toContain('run-interrupted');
  }, 120_000);
});
