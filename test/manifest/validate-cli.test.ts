import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { MINIMAL, tempProject } from './project.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('locsync validate', () => {
  it('exits 0 for a valid manifest and 2 with every problem for an invalid one', async () => {
    const p = await tempProject({
      'ok.yaml': MINIMAL,
      'docs/a.txt': 'A document.\n',
      'bad.yaml': MINIMAL.replace('- lang: de', '- lang: xx\n        formality: mor').replace(
        'source:',
        'sorce:',
      ),
    });
    cleanups.push(p.remove);
    const ok = await runCli(['validate', '-c', path.join(p.dir, 'ok.yaml')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('is valid: 1 mapping, 1 target, 0 style lists\n');
    expect(ok.stdout).not.toMatch(/warning/);

    const badPath = path.join(p.dir, 'bad.yaml');
    const bad = await runCli(['validate', '-c', badPath]);
    expect(bad.code).toBe(2);
    const lines = bad.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith(`${path.join(p.dir, 'bad.yaml')}:`))).toHaveLength(4);
    expect(bad.stdout).toContain("unknown key 'sorce' in mappings[0] (did you mean 'source'?)");
    expect(bad.stdout).toContain(`4 problems found in ${badPath}`);

    const json = await runCli(['validate', '-c', badPath, '--json']);
    expect(json.code).toBe(2);
    const parsed = JSON.parse(json.stdout) as {
      valid: boolean;
      errors: Array<{ line: number; message: string }>;
    };
    expect(parsed.valid).toBe(false);
    expect(parsed.errors.map((e) => e.line)).toEqual([2, 3, 6, 7]);
  });
});
