import { describe, expect, it } from 'vitest';
import { curveResults, curveSizes, perFile } from '../../bench/lib/noop-curve.js';
import { verdict } from '../../bench/lib/table.js';

// The no-op's curve (issue 51): the cost per file above the fixed part (a no-op of one file), held flat
// within 15% from 10,000 to 100,000 files, and what it predicts for 1 and 10 million files.

const MB = 1024 * 1024;
const fixed = { ms: 200, rssBytes: 50 * MB };

describe("the no-op bench's curve", () => {
  it('takes the cost per file above the no-op of one file, and judges its change from 10,000 to 100,000', () => {
    // 3 us and 1,000 bytes per file at both sizes: flat.
    const flat = [
      { files: 10_000, ms: 230, rssBytes: 50 * MB + 10_000_000 },
      { files: 100_000, ms: 500, rssBytes: 50 * MB + 100_000_000 },
    ];
    expect(perFile(flat[0]!, fixed)).toEqual({ us: 3, bytes: 1000 });
    const results = curveResults(flat, fixed, 100_000);
    const changes = results.filter((r) => r.name.includes('change of the'));
    expect(changes.map((r) => [r.value, verdict(r)])).toEqual([
      [0, 'yes'],
      [0, 'yes'],
    ]);
    const million = results.find((r) => r.name.includes('over 1000000 files as'));
    expect(million).toMatchObject({ value: 3200, note: expect.stringContaining('not measured') });
    expect(million!.note).toContain(`${Math.round((50 * MB + 1e9) / MB)} MB RSS`);
  });

  it('finds a cost per file that grows with the tree, and sets a measured million beside its prediction', () => {
    const points = [
      { files: 10_000, ms: 230, rssBytes: 60 * MB },
      // 4 us per file at 100,000: a third more than at 10,000.
      { files: 100_000, ms: 600, rssBytes: 60 * MB + 90 * MB },
      { files: 1_000_000, ms: 4_600, rssBytes: 900 * MB },
    ];
    const results = curveResults(points, fixed, 100_000);
    const time = results.find((r) => r.name.includes('change of the time'));
    expect(time).toMatchObject({ value: 33 });
    expect(verdict(time!)).toBe('NO');
    expect(results.find((r) => r.name.includes('over 1000000 files as'))?.note).toContain(
      'measured 4600 ms (1.1x)',
    );
  });

  it('reads its sizes from LOCSYNC_BENCH_NOOP_CURVE, else 10,000 (none under --quick)', () => {
    expect(curveSizes('10000, 1_000_000', false)).toEqual([10_000, 1_000_000]);
    expect(curveSizes(undefined, false)).toEqual([10_000]);
    expect(curveSizes('', true)).toEqual([]);
  });
});
