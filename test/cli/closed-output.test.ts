import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_ARGS } from '../helpers/cli.js';
import { FAST_POLL_ENV, KEY_ENV, OPS_KEY, opsProject, type OpsProject } from './ops-fixture.js';

// A reader that is gone before locsync writes (`locsync status | head`, `locsync sync | grep` ended
// early): the command still does its work and exits as it would have, without a stack trace.

/** Runs the CLI with its standard output (and, if asked, its error output) closed by the reader at once. */
function runWithReaderGone(
  args: string[],
  cwd: string,
  closeStderr: boolean,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', CI: undefined, [KEY_ENV]: OPS_KEY, ...FAST_POLL_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    if (closeStderr) child.stderr.destroy();
    else child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('output to a reader that is gone', () => {
  let p: OpsProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('--help and status exit 0 without a stack trace; a sync translates everything and records it', async () => {
    p = await opsProject();
    p.write('a.txt', 'The first document.\n');
    p.write('b.txt', 'The second document.\n');

    const help = await runWithReaderGone(['--help'], p.dir, false);
    expect(help.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(help.code).toBe(0);

    // Both outputs gone: the summary, the progress lines and the logs have nowhere to go.
    const sync = await runWithReaderGone(['sync', '--no-progress'], p.dir, true);
    expect(sync.code).toBe(0);
    for (const lang of ['de', 'fr'])
      for (const f of ['a.txt', 'b.txt']) expect(fs.existsSync(path.join(p.dir, 'out', lang, f))).toBe(true);

    const status = await runWithReaderGone(['status'], p.dir, false);
    expect(status.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(status.code).toBe(0);

    // The run was recorded as done: a second sync has nothing to upload.
    const again = await p.cli(['sync', '--json', '--no-progress']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ translated: 0, unchanged: 4 });
  });
});
