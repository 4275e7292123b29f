import type { BenchResult } from '../types.js';
import { RSYNC_MISSING } from './tools.js';

// The no-op's two bounds (issue 51, design.md "Performance targets"): within 1.15x of the floor
// measured in the same run (Node.js start + loading the bundled sync command + a bare lstat walk of
// the same tree), and at most 1.3x `rsync -a --dry-run`. Pure: the figures come from sync-noop.ts.

export const FLOOR_RATIO = 1.15;
export const RSYNC_RATIO = 1.3;

/** The floor's measured processes (ms): a bare start, start + load, start + walk. */
export interface NoopFloor {
  start: number;
  load: number;
  walk: number;
}

/** Node.js start + loading + the walk: each measured process starts Node.js, counted once. */
export function floorMs(f: NoopFloor): number {
  return f.load + f.walk - f.start;
}

/** A measure against its bound, to two decimals. */
export const ratioOf = (ms: number, of: number): number => Math.round((ms / of) * 100) / 100;

/** The no-op's figure held to the floor, and to rsync (or why rsync could not be run). */
export function noopBounds(files: number, ms: number, floor: NoopFloor, rsyncMs?: number): BenchResult[] {
  const f = floorMs(floor);
  const name = `sync-noop: no-op \`locsync sync\` over ${files} unchanged files (process start to exit)`;
  return [
    {
      name: `${name}, against the floor`,
      value: Math.round(ms),
      unit: 'ms',
      bound: `<= ${FLOOR_RATIO}x the floor (${Math.round(f)} ms: start + load + bare walk)`,
      ratio: ratioOf(ms, FLOOR_RATIO * f),
    },
    {
      name: `${name}, against rsync`,
      value: Math.round(ms),
      unit: 'ms',
      ...(rsyncMs !== undefined
        ? {
            bound: `<= ${RSYNC_RATIO}x rsync -a --dry-run (${Math.round(rsyncMs)} ms)`,
            ratio: ratioOf(ms, RSYNC_RATIO * rsyncMs),
          }
        : { note: RSYNC_MISSING }),
    },
  ];
}
