import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runCli, ROOT } from '../helpers/cli.js';

describe('locsync CLI basics', () => {
  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('exits 2 with a usage message on an unknown command', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command/);
  });
});
