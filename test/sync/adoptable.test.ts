import { describe, expect, it } from 'vitest';
import { decideAdoption } from '../../src/sync/plan/adoptable.js';

const act = (file: string, reason = 'new', kind = 'translate') => ({
  kind,
  reason,
  ref: { mapping: 'docs', file, target: 'de', output: `out/de/${file}` },
});

describe('decideAdoption', () => {
  it('adopts outputs at least as new as their source; lists what it cannot vouch for', () => {
    const times: Record<string, { source: number | undefined; output: number | undefined }> = {
      'a.txt': { source: 100, output: 200 },
      'same.txt': { source: 100, output: 100 },
      'edited.txt': { source: 300, output: 200 },
      'missing.txt': { source: 100, output: undefined },
      'retry.txt': { source: 100, output: 200 },
    };
    const d = decideAdoption(
      [
        act('a.txt'),
        act('same.txt'),
        act('edited.txt'),
        act('missing.txt'),
        act('retry.txt', 'retry'),
        act('x', '', 'reuse'),
      ],
      (a) => times[a.ref.file]!,
    );
    expect(d.adopt.map((a) => a.ref.file)).toEqual(['a.txt', 'same.txt']);
    expect(d.notVouched.map((n) => [n.action.ref.file, n.why])).toEqual([
      ['edited.txt', 'the source changed after the output was written'],
      ['missing.txt', 'no output on disk'],
      ['retry.txt', 'the state has a record of it (retry)'],
    ]);
  });
});
