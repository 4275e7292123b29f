import type { BenchResult } from '../types.js';

// The no-op's cost per file from 10,000 to 100,000 files and what it predicts for 1 and 10 million
// (issue 51). A no-op pays a fixed part (Node.js start, loading the command, the state, the run
// record: measured in the same run as the same command's no-op over a tree of one file) and a part
// per file; the curve is the per-file part, which is flat when the no-op scales: within 15% from
// 10,000 to 100,000 files, for both time and RSS. Pure: the figures come from sync-noop.ts.

/** Targets: the per-file cost at 100,000 files within 15% of that at 10,000. */
export const FLAT_WITHIN = 0.15;

/** One size of the curve: the steady no-op's median time and peak RSS. */
export interface CurvePoint {
  files: number;
  ms: number;
  rssBytes: number;
}

/** The fixed part under every point: the no-op over one file, its time (ms) and peak RSS. */
export interface CurveFixed {
  ms: number;
  rssBytes: number;
}

/** The per-file part of a point: µs and bytes per file above the fixed part. */
export function perFile(p: CurvePoint, fixed: CurveFixed): { us: number; bytes: number } {
  return {
    us: (Math.max(0, p.ms - fixed.ms) * 1000) / p.files,
    bytes: Math.max(0, p.rssBytes - fixed.rssBytes) / p.files,
  };
}

/** The no-op of `files` as the per-file cost of `at` predicts it. */
export function predicted(at: CurvePoint, fixed: CurveFixed, files: number): CurvePoint {
  const pf = perFile(at, fixed);
  return { files, ms: fixed.ms + (pf.us * files) / 1000, rssBytes: fixed.rssBytes + pf.bytes * files };
}

const MB = 1024 * 1024;
const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The curve's figures: each point with its per-file cost; the change of the per-file cost between
 * the smallest point and the default size (`reference`, 100,000), held to FLAT_WITHIN; and the
 * no-op of 1 and 10 million files as the reference's per-file cost predicts it (with the measured
 * figure beside it when the curve has that size).
 */
export function curveResults(
  points: readonly CurvePoint[],
  fixed: CurveFixed,
  reference: number,
): BenchResult[] {
  const sorted = [...points].sort((a, b) => a.files - b.files);
  const out: BenchResult[] = [];
  for (const p of sorted) {
    const pf = perFile(p, fixed);
    out.push(
      {
        name: `sync-noop: curve: no-op over ${p.files} files`,
        value: Math.round(p.ms),
        unit: 'ms',
        note: `${round2(pf.us)} us/file above the no-op of one file (${Math.round(fixed.ms)} ms)`,
      },
      {
        name: `sync-noop: curve: peak RSS of the no-op over ${p.files} files`,
        value: Math.round(p.rssBytes / MB),
        unit: 'MB',
        note: `${Math.round(pf.bytes)} bytes/file above the no-op of one file (${Math.round(fixed.rssBytes / MB)} MB)`,
      },
    );
  }
  const ref = sorted.find((p) => p.files === reference);
  const small = sorted[0];
  if (ref && small && small.files < ref.files) {
    const a = perFile(small, fixed);
    const b = perFile(ref, fixed);
    for (const [what, x, y] of [
      ['time', a.us, b.us],
      ['RSS', a.bytes, b.bytes],
    ] as const) {
      const change = x > 0 ? Math.abs(y - x) / x : 0;
      out.push({
        name: `sync-noop: curve: change of the ${what} per file, ${small.files} -> ${ref.files} files`,
        value: Math.round(change * 100),
        unit: '%',
        bound: `<= ${FLAT_WITHIN * 100}%`,
        ratio: round2(change / FLAT_WITHIN),
      });
    }
  }
  if (ref)
    for (const files of [1_000_000, 10_000_000]) {
      const p = predicted(ref, fixed, files);
      const measured = sorted.find((q) => q.files === files);
      out.push({
        name: `sync-noop: curve: no-op over ${files} files as the ${ref.files}-file cost per file predicts it`,
        value: Math.round(p.ms),
        unit: 'ms',
        note:
          `${Math.round(p.rssBytes / MB)} MB RSS` +
          (measured
            ? `; measured ${Math.round(measured.ms)} ms (${round2(measured.ms / p.ms)}x), ${Math.round(measured.rssBytes / MB)} MB`
            : '; not measured in this run (LOCSYNC_BENCH_NOOP_CURVE)'),
      });
    }
  return out;
}

/**
 * The curve's sizes (besides the default size): LOCSYNC_BENCH_NOOP_CURVE as a comma list (e.g.
 * `10000,1000000`), else 10,000 (none under --quick).
 */
export function curveSizes(raw: string | undefined, quick: boolean): number[] {
  if (raw !== undefined && raw.trim() !== '')
    return raw
      .split(',')
      .map((s) => Number(s.trim().replace(/_/g, '')))
      .filter((n) => Number.isInteger(n) && n > 0);
  return quick ? [] : [10_000];
}
