import { spawnSync } from 'node:child_process';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { isDynamicPattern } from '../../src/util/glob-pattern.js';

const PATTERNS = [
  'drafts',
  'drafts/**',
  '**',
  '*.md',
  'a?c',
  '!x',
  'x!',
  '[ab]',
  '[',
  'a]',
  '(a|b)',
  '!(a|b)',
  '@(a)',
  '+(a)',
  '*(a)',
  '?(a)',
  '(a)',
  '{a,b}',
  '{a..c}',
  '{a}',
  '{a',
  'a}',
  'a\\b',
  'a.b',
  'file name',
  'über',
  'a/b/c',
  '.git',
  'x(y',
  'x|y',
  '{,}',
  '}{a,b',
  'a(b|c',
  '[[a]',
];

describe('isDynamicPattern', () => {
  it("answers as fast-glob's does, pattern for pattern", () => {
    expect(isDynamicPattern('')).toBe(false);
    for (const p of PATTERNS) expect([p, isDynamicPattern(p)]).toEqual([p, fg.isDynamicPattern(p)]);
  });

  it('a no-op sync needs no fast-glob: the listing rules load without it', () => {
    const script = `
      import { createRequire } from 'node:module';
      await import('./src/sync/plan/source-rules.ts');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('/fast-glob/'));
      console.log(JSON.stringify(loaded));`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual([]);
  });
});
