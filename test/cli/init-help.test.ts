import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { ignoredOutputFolder, parseTargets } from '../../src/cli/init.js';
import { buildProgram, run } from '../../src/cli/main.js';
import { ConfigError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

describe('--help', () => {
  const program = buildProgram();
  const commands = program.commands.filter((c) => c.name() !== 'help');

  it.each(commands.map((c) => [c.name(), c] as const))(
    '%s --help shows examples and the global flags',
    (_n, cmd) => {
      const text = helpOf(cmd);
      expect(text).toMatch(/\nExamples:\n\s+\$ locsync /);
      expect(text).toContain('--log-format <format>');
      expect(text).toContain('--no-progress');
    },
  );

  it.each([
    ['report', '--by', 'week'],
    ['sync', '--frobnicate'],
    ['styles', 'apply', '--bogus'],
    ['--log-format', 'xml', 'status'],
  ])('a bad flag (%s %s ...) is a usage error: exit 2', async (...argv) => {
    expect(await run(argv)).toBe(2);
  });

  it('the program help lists the exit codes', () => {
    const text = helpOf(program);
    expect(text).toMatch(/Exit codes:\n\s+0 .*\n\s+1 .*\n\s+2 /);
  });
});

describe('locsync init', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-init-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a commented manifest in the current folder that validates, and never overwrites it silently', async () => {
    const r = await runCli(
      ['init', '--source', 'manuals', '--targets', 'de,JA', '--output', 'out/{lang}/{path}'],
      {
        cwd: dir,
      },
    );
    expect(r.code).toBe(0);
    const file = path.join(dir, 'pipeline.yaml');
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toMatch(/^# /);
    expect(written).toContain('source: "manuals"');
    expect(written).toMatch(/- lang: de\n\s+- lang: ja/);
    expect(r.stdout).toContain('Created the folder manuals/');
    expect(fs.statSync(path.join(dir, 'manuals')).isDirectory()).toBe(true);
    // The manifest never sends anyone to the npm registry for a package named locsync.
    expect(written).not.toMatch(/npx locsync/);
    // The state and the outputs are kept out of git.
    expect(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8')).toMatch(/^\/\.locsync\/\n\/out\/$/m);
    expect(r.stdout).toContain('Added to .gitignore: .locsync/ out/');

    const v = await runCli(['validate', '--json'], { cwd: dir });
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ valid: true, errors: [] });

    const again = await runCli(['init', '--targets', 'fr'], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/pipeline\.yaml already exists; not overwritten \(use --force/);
    expect(fs.readFileSync(file, 'utf8')).toBe(written);
  }, 60_000);

  it('--json says what was written; an existing .gitignore keeps its lines and gets none twice', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-init-json-'));
    try {
      fs.writeFileSync(path.join(d, '.gitignore'), 'node_modules/\n/.locsync/');
      const r = await runCli(['init', '--json', '--output', 'translated/{lang}/{path}'], { cwd: d });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ targets: ['de', 'fr'], gitignore: ['translated/'] });
      expect(fs.readFileSync(path.join(d, '.gitignore'), 'utf8')).toBe(
        'node_modules/\n/.locsync/\n# locsync: the state (SQLite, never shared) and the translated outputs it writes\n/translated/\n',
      );
      expect(ignoredOutputFolder('{dir}/{stem}.{lang}.{ext}')).toBeUndefined();
      expect(ignoredOutputFolder('./out/{lang}/{path}')).toBe('out/');
      expect(ignoredOutputFolder('out/docs-{lang}/{path}')).toBe('out/');
      expect(ignoredOutputFolder('../shared/{lang}/{path}')).toBeUndefined();
      expect(ignoredOutputFolder('/srv/out/{lang}/{path}')).toBeUndefined();
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  }, 30_000);

  it('a misspelt target language is refused with a suggestion', () => {
    expect(() => parseTargets('de,frr')).toThrow(ConfigError);
    expect(() => parseTargets('de,frr')).toThrow(/"frr" is not a target language.*did you mean "fr"/);
    expect(parseTargets(' DE, fr ,de')).toEqual(['de', 'fr']);
  });
});
