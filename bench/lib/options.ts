// Options every benchmark reads the same way. The runner (bench/run.ts) passes them to each
// benchmark's child process through the environment, so `npx tsx bench/<file>.ts` honours them too.

/** Set by `npm run bench -- --quick`: smaller sizes for a fast check (figures are less telling). */
export const QUICK_ENV = 'LOCSYNC_BENCH_QUICK';

export function isQuick(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[QUICK_ENV];
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * A size for this run: `override` when that environment variable holds a positive number, else
 * `quick` under --quick, else `full`. E.g. `benchSize(100_000, 10_000, 'LOCSYNC_BENCH_NOOP_FILES')`.
 */
export function benchSize(full: number, quick: number, override?: string): number {
  const raw = override ? process.env[override] : undefined;
  const n = raw === undefined ? NaN : Number(raw);
  if (Number.isFinite(n) && n > 0) return n;
  return isQuick() ? quick : full;
}
