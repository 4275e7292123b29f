import fs from 'node:fs';

// Resident set size: of this process, or of another one (a child under test) read from /proc.

const MB = 1024 * 1024;

/** RSS of `pid` in bytes (Linux /proc; elsewhere this process only). undefined when it has exited. */
export function rssOf(pid: number = process.pid): number | undefined {
  if (pid === process.pid) return process.memoryUsage.rss();
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface RssSampler {
  /** Highest RSS seen so far, bytes. */
  peak(): number;
  /** Stop sampling; returns the peak in bytes (including one last sample). */
  stop(): number;
}

/** Samples the RSS of `pid` every `intervalMs` until stopped. */
export function sampleRss(pid: number = process.pid, intervalMs = 10): RssSampler {
  let peak = rssOf(pid) ?? 0;
  const take = () => {
    const v = rssOf(pid);
    if (v !== undefined && v > peak) peak = v;
  };
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    peak: () => peak,
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/** Runs `work` while sampling the RSS of `pid`; resolves to its value and the peak RSS in bytes. */
export async function peakRssDuring<T>(
  work: () => Promise<T>,
  pid: number = process.pid,
  intervalMs = 10,
): Promise<{ value: T; peak: number }> {
  const sampler = sampleRss(pid, intervalMs);
  try {
    const value = await work();
    return { value, peak: sampler.stop() };
  } finally {
    sampler.stop();
  }
}

/** Bytes to MB with one decimal. */
export function toMb(bytes: number): number {
  return Math.round((bytes / MB) * 10) / 10;
}
