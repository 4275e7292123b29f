// Numbers as people read them, the same in the terminal view, the summary, status and the reports:
// thousands separated, bytes in binary units, durations in the largest two units.

/** 753750 -> "753,750". */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** "1 file", "2 files", "1,204 entries": a count and its noun, singular for one. */
export function formatCounted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** 1536 -> "1.5 KiB"; whole bytes below 1 KiB. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${Math.round(v)} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** 75_000 -> "1m15s"; 4_000_000 -> "1h06m". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** part of whole as a whole percentage, floored so that 100% means all ("–" of nothing). */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  return `${Math.floor((100 * part) / whole)}%`;
}
