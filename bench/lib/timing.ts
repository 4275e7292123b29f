import fs from 'node:fs';

// Wall-clock and CPU time.

/** Runs `work` and measures its wall-clock time in milliseconds. */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** The middle value (of an odd count; the upper middle of an even one). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Median of the wall-clock times of `runs` runs of `work` (after `warmup` unmeasured runs). */
export async function medianMs(work: () => Promise<unknown>, runs = 3, warmup = 0): Promise<number> {
  for (let i = 0; i < warmup; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(work)).ms);
  return median(times);
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU time (user + system) used so far by `pid`, milliseconds; undefined when unreadable. */
export function cpuMsOf(pid: number = process.pid): number | undefined {
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * Share of one core `pid` used over `ms` milliseconds of wall-clock time, in percent
 * (100 = one core busy the whole time).
 */
export async function cpuPercentOver(pid: number, ms: number): Promise<number> {
  const cpu0 = cpuMsOf(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  const cpu1 = cpuMsOf(pid);
  const wall = performance.now() - t0;
  if (cpu0 === undefined || cpu1 === undefined) throw new Error(`cannot read the CPU time of pid ${pid}`);
  return ((cpu1 - cpu0) / wall) * 100;
}
