import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// The bash script is run by bash itself: complete a command line, read COMPREPLY.

describe('locsync completion', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-completion-'));
  const script = path.join(dir, 'locsync.bash');
  beforeAll(async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    fs.writeFileSync(script, r.stdout);
  }, 30_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** What bash offers for the words (the last one is being typed). */
  function complete(...words: string[]): string[] {
    const line = ['locsync', ...words];
    const code = `source ${JSON.stringify(script)}
COMP_WORDS=(${line.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${line.length - 1}
_locsync; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '-c', code], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean).sort();
  }

  it('bash completes commands, subcommands, options of the command typed and their choices', () => {
    expect(complete('s')).toEqual(['serve', 'state', 'status', 'styles', 'sync']);
    expect(complete('styles', '')).toEqual(['apply', 'pull']);
    expect(complete('sync', '--dr')).toEqual(['--drift', '--dry-run']);
    expect(complete('sync', '--drift', '')).toEqual(['adopt', 'fail', 'overwrite']);
    expect(complete('report', '--by', '')).toEqual(['cost-centre', 'language', 'mapping', 'month']);
    expect(complete('--log-level', 'warn', 'report', '--format', 'c')).toEqual(['csv']);
    // Global flags after the command too; a manifest is a file.
    expect(complete('status', '--log-f')).toEqual(['--log-format']);
    fs.writeFileSync(path.join(dir, 'pipeline.yaml'), 'version: 1\n');
    expect(complete('plan', '-c', 'pip')).toEqual(['pipeline.yaml']);
  });

  it('zsh and fish get scripts of their own; an unknown shell is a usage error', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef locsync\n/);
    const fish = await runCli(['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c locsync -n '__fish_use_subcommand' -a 'sync'");
    expect(fish.stdout).toContain(
      "-n '__fish_seen_subcommand_from report' -l by -x -a 'language mapping month cost-centre'",
    );
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown shell "tcsh" \(choose bash, zsh, fish\)/);
  }, 30_000);
});
