/** One measured number of a benchmark (bench/*.ts export `run(): Promise<BenchResult[]>`). */
export interface BenchResult {
  name: string;
  value: number;
  /** false: not measured (the note says why; value is 0), shown without a figure or a verdict. */
  measured?: false;
  unit: string;
  /** The target this number is held to, in words (e.g. "< 50 MB over baseline"). */
  bound?: string;
  /** value / bound where the bound is a number (<= 1 meets it), when that makes sense. */
  ratio?: number;
  /**
   * Whether the figure meets its target (design.md), when the benchmark decides it itself (e.g. a
   * "higher is better" target such as throughput >= 95% of C/L). Absent: the runner takes ratio <= 1.
   */
  meets?: boolean;
  /** Shown instead of the ratio when it could not be measured (e.g. "rsync not installed — ..."). */
  note?: string;
}
