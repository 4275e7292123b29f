import { describe, expect, it } from 'vitest';
import { noopBounds } from '../../bench/lib/noop-bounds.js';
import { formatTable, verdict } from '../../bench/lib/table.js';

// The no-op bench holds the no-op to the targets issue 51 restated (design.md): within 1.15x of the
// floor measured in the same run (Node.js start + loading the sync command + a bare walk), and at
// most 1.3x rsync, no longer to rsync's own time.

describe("the no-op bench's bounds", () => {
  it('judges the no-op against 1.15x the floor and 1.3x rsync', () => {
    // Floor: 100 ms start, +400 ms loading, +600 ms walking = 1,100 ms.
    const floor = { start: 100, load: 500, walk: 700 };
    const [againstFloor, againstRsync] = noopBounds(100_000, 1_200, floor, 1_000);
    expect(againstFloor).toMatchObject({ bound: '<= 1.15x the floor (1100 ms: start + load + bare walk)' });
    expect(verdict(againstFloor!)).toBe('yes');
    expect(againstRsync).toMatchObject({ bound: '<= 1.3x rsync -a --dry-run (1000 ms)' });
    expect(verdict(againstRsync!)).toBe('yes');
    // Slower than 1.15x the floor (1,265 ms) but within 1.3x rsync: the floor's bound is not met.
    const slow = noopBounds(100_000, 1_290, floor, 1_000);
    expect(slow.map(verdict)).toEqual(['NO', 'yes']);
    // Without rsync the table says why, and only the floor is judged.
    const table = formatTable(
      noopBounds(100_000, 1_200, floor).map((result) => ({ bench: 'sync-noop', result })),
    );
    expect(table).toContain('rsync not installed');
  });
});
