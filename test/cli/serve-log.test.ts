import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_ARGS } from '../helpers/cli.js';

/** Start `locsync serve` with `args`, send one request, stop it; its stderr. */
async function serveOnce(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...args], {
    env: { ...process.env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('close', () => reject(new Error(`serve ended: ${stderr}`)));
  });
  await fetch(`${url}/v2/languages`, { headers: { authorization: 'DeepL-Auth-Key some-key-123' } });
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
  return stderr;
}

describe('locsync serve --log-level', () => {
  it('logs the requests at the level given, and nothing without it', async () => {
    const logged = await serveOnce(['--log-level', 'info']);
    expect(logged).toMatch(/"url":"\/v2\/languages"/);
    const quiet = await serveOnce([]);
    expect(quiet).toBe('');
  }, 60_000);
});
