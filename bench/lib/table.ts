import type { BenchResult } from '../types.js';

// The runner's one table (Markdown, aligned, so it reads in a terminal and pastes into docs).

export interface Row {
  bench: string;
  result?: BenchResult;
  error?: string;
}

/** yes / NO / '' (no target) for one figure: the benchmark's own verdict, else ratio <= 1. */
export function verdict(r: BenchResult): 'yes' | 'NO' | '' {
  const meets = r.meets ?? (r.ratio !== undefined && r.bound !== undefined ? r.ratio <= 1 : undefined);
  return meets === undefined ? '' : meets ? 'yes' : 'NO';
}

function figure(r: BenchResult): string {
  // Not measured: its note says why.
  if (r.measured === false) return 'not measured';
  return `${Number.isInteger(r.value) ? r.value.toLocaleString('en-US') : String(r.value)} ${r.unit}`.trim();
}

const escape = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatTable(rows: Row[]): string {
  const header = ['Benchmark', 'Measured', 'Figure', 'Bound or peer', 'Ratio', 'Meets target'];
  const cells = rows.map((row) => {
    if (row.error) return [row.bench, `failed: ${row.error}`, '', '', '', 'NO'];
    const r = row.result!;
    // "sync-noop: no-op sync ..." in the sync-noop row: the benchmark's name once is enough.
    const measured = r.name.startsWith(`${row.bench}: `) ? r.name.slice(row.bench.length + 2) : r.name;
    return [
      row.bench,
      measured,
      figure(r),
      r.bound ?? '',
      r.note ?? (r.ratio !== undefined ? String(r.ratio) : ''),
      verdict(r),
    ];
  });
  const all = [header, ...cells].map((line) => line.map(escape));
  const widths = header.map((_, i) => Math.max(...all.map((line) => line[i]!.length)));
  const fmt = (line: string[]) => `| ${line.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(all[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...all.slice(1).map(fmt)].join(
    '\n',
  );
}

/** "12 figures; 6 with a target: 5 met, 1 not met; 1 benchmark failed" */
export function formatTally(rows: Row[]): string {
  const results = rows.flatMap((r) => (r.result ? [r.result] : []));
  const judged = results.map(verdict).filter((v) => v !== '');
  const met = judged.filter((v) => v === 'yes').length;
  const failed = new Set(rows.filter((r) => r.error).map((r) => r.bench)).size;
  return (
    `${results.length} figures; ${judged.length} with a target: ${met} met, ${judged.length - met} not met` +
    (failed ? `; ${failed} benchmark${failed > 1 ? 's' : ''} failed` : '')
  );
}
