import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ARGS, runCli } from '../helpers/cli.js';

/** Starts `locsync serve` and resolves with its URL once it printed it. */
function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stdout} ${stderr}`)), 30_000);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('close', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  return { child, url, exited, out: () => stdout + stderr };
}

describe('locsync serve', () => {
  it('prints its URL, serves the API with the configured key, and stops cleanly on SIGTERM', async () => {
    const key = 'serve-secret-key-42';
    const s = serve(['--auth-key', key, '--queue-seconds', '0', '--translate-seconds', '0']);
    const url = await s.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ok = await fetch(`${url}/v2/translate`, {
      method: 'POST',
      headers: { Authorization: `Service-Auth-Key ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: ['Hello'], target_lang: 'DE' }),
    });
    expect(ok.status).toBe(200);
    const wrong = await fetch(`${url}/v3/style_rules`, {
      headers: { Authorization: 'Service-Auth-Key other' },
    });
    expect(wrong.status).toBe(403);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.out()).not.toContain(key);
    expect(s.out()).toContain('stopped');
  });

  it('takes the key from the variable --auth-key-env names; --auth-key on the command line (seen by ps) works with a warning', async () => {
    const fromEnv = serve(['--auth-key-env', 'MY_SERVICE_KEY'], { MY_SERVICE_KEY: 'named-env-key-77' });
    const url = await fromEnv.url;
    const translate = (key: string) =>
      fetch(`${url}/v2/translate`, {
        method: 'POST',
        headers: { Authorization: `Service-Auth-Key ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: ['x'], target_lang: 'DE' }),
      });
    expect((await translate('named-env-key-77')).status).toBe(200);
    expect((await translate('another-key')).status).toBe(403);
    fromEnv.child.kill('SIGTERM');
    expect(await fromEnv.exited).toBe(0);
    expect(fromEnv.out()).not.toMatch(/warning/);

    const unset = await runCli(['serve', '--port', '0', '--auth-key-env', 'NOT_SET_ANYWHERE_42']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/--auth-key-env: the environment variable NOT_SET_ANYWHERE_42 is not set/);

    const flag = serve(['--auth-key', 'flag-key-123456']);
    await flag.url;
    flag.child.kill('SIGTERM');
    expect(await flag.exited).toBe(0);
    expect(flag.out()).toMatch(/warning: --auth-key puts the key in the process list \(ps/);
    expect(flag.out()).toMatch(/LOCSYNC_SERVE_KEY=… or --auth-key-env NAME/);
    expect(flag.out()).not.toContain('flag-key-123456');
  });

  it('takes the key from LOCSYNC_SERVE_KEY, the plan and faults from flags', async () => {
    const s = serve(['--plan', 'free', '--faults', '{"status":503,"count":1,"match":{"path":"/v2/"}}'], {
      LOCSYNC_SERVE_KEY: 'env-key-123456',
    });
    const url = await s.url;
    const H = { Authorization: 'Service-Auth-Key env-key-123456', 'Content-Type': 'application/json' };
    const body = JSON.stringify({ text: ['x'], target_lang: 'DE' });
    expect((await fetch(`${url}/v2/translate`, { method: 'POST', headers: H, body })).status).toBe(503);
    expect((await fetch(`${url}/v2/translate`, { method: 'POST', headers: H, body })).status).toBe(200);
    expect((await fetch(`${url}/v3/style_rules`, { headers: H })).status).toBe(403);
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  });

  it('--requests-per-second: a burst beyond the rate answers 429 with Retry-After', async () => {
    const s = serve(['--requests-per-second', '1']);
    const url = await s.url;
    const H = { Authorization: 'Service-Auth-Key any-key-123456' };
    // A bucket of one request, refilled once a second: ten at once cannot all go.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${url}/v2/usage`, { headers: H })),
    );
    const over = burst.filter((r) => r.status === 429);
    expect(burst.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(over.length).toBeGreaterThanOrEqual(1);
    expect(over[0]!.headers.get('retry-after')).toBe('1');
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  });

  it('exits 2 on bad flags', async () => {
    const cases = [
      ['--plan', 'gold'],
      ['--faults', '{nope'],
      ['--faults', '{"bogus":1}'],
      ['--port', 'x'],
      ['--workers', '0'],
      ['--requests-per-second', '0'],
    ];
    const results = await Promise.all(
      cases.map((args) => runCli(['serve', ...args], { timeoutMs: 170_000 })),
    );
    results.forEach((r, i) => {
      expect(r.code, cases[i]!.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--/);
    });
  }, 180_000);

  it('--style-rules: the service holds those lists from its start, under their own ids; a bad file is named with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locsync-serve-rules-'));
    try {
      const file = join(dir, 'lists.yaml');
      writeFileSync(
        file,
        [
          '- style_id: 0f3c2b1a-1111-4222-8333-944455556666',
          '  name: House style',
          '  language: en',
          '  configured_rules:',
          '    dates_and_times: { time_format: use_24_hour_clock }',
          '  custom_instructions:',
          '    - { label: Tone, prompt: Be formal }',
          '',
        ].join('\n'),
      );
      const s = serve(['--style-rules', file, '--queue-seconds', '0', '--translate-seconds', '0']);
      const url = await s.url;
      const H = { Authorization: 'DeepL-Auth-Key any-key' };
      const lists = (await (await fetch(`${url}/v3/style_rules?detailed=true`, { headers: H })).json()) as {
        style_rules: Array<{
          style_id: string;
          name: string;
          configured_rules: unknown;
          custom_instructions: unknown[];
        }>;
      };
      expect(lists.style_rules).toHaveLength(1);
      expect(lists.style_rules[0]).toMatchObject({
        style_id: '0f3c2b1a-1111-4222-8333-944455556666',
        name: 'House style',
        configured_rules: { dates_and_times: { time_format: 'use_24_hour_clock' } },
      });
      expect(lists.style_rules[0]!.custom_instructions).toHaveLength(1);
      s.child.kill('SIGTERM');
      await s.exited;

      const bad = join(dir, 'bad.yaml');
      writeFileSync(
        bad,
        '- style_id: ok-1\n  name: Fine\n  language: en\n- style_id: ok-2\n  name: Broken\n  language: xx\n',
      );
      const refused = await runCli(['serve', '--port', '0', '--style-rules', bad]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${bad}:4: style rule list 2: Field 'language' must be one of`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
