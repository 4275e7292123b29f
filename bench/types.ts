/** One measured number of a benchmark (bench/*.ts export `run(): Promise<BenchResult[]>`). */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** The target this number is held to, in words (e.g. "< 50 MB over baseline"). */
  bound?: string;
  /** value / bound where the bound is a number (<= 1 meets it), when that makes sense. */
  ratio?: number;
}
