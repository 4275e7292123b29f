// Budget caps: whether a run may upload what its plan prices (before the first upload), and whether
// one more upload still fits while the run goes on (estimates can be low). Pure decisions; the
// figures come from the plan and the state's ledger (./ledger.ts).

/** `budget:` of the manifest, and `sync --max-billed` for one run. Characters; absent: no cap. */
export interface BudgetCaps {
  /** Characters one run may bill (`budget.per_run`). */
  perRun?: number;
  /** Characters a calendar month (UTC) may bill, counted from the state's ledger (`budget.per_month`). */
  perMonth?: number;
  /** `--max-billed N`: this run only; replaces perRun. */
  maxBilled?: number;
}

export type CapName = 'max-billed' | 'per_run' | 'per_month';

export interface CapExceeded {
  cap: CapName;
  /** The cap, characters. */
  limit: number;
  /** Characters already billed against it before this run (the month so far; 0 for run caps). */
  used: number;
  /** Characters this run would add. */
  adding: number;
}

/** The caps that apply to this run: --max-billed replaces budget.per_run, the month cap stays. */
function activeCaps(caps: BudgetCaps, billedThisMonth: number): Array<Omit<CapExceeded, 'adding'>> {
  const out: Array<Omit<CapExceeded, 'adding'>> = [];
  if (caps.maxBilled !== undefined) out.push({ cap: 'max-billed', limit: caps.maxBilled, used: 0 });
  else if (caps.perRun !== undefined) out.push({ cap: 'per_run', limit: caps.perRun, used: 0 });
  if (caps.perMonth !== undefined)
    out.push({ cap: 'per_month', limit: caps.perMonth, used: billedThisMonth });
  return out;
}

/**
 * Before a run: the caps that billing `planned` characters would exceed (empty: the run may go on).
 * A cap is exceeded when used + planned is above it; reaching it exactly is allowed.
 */
export function checkBudget(planned: number, caps: BudgetCaps, billedThisMonth: number): CapExceeded[] {
  return activeCaps(caps, billedThisMonth)
    .map((c) => ({ ...c, adding: planned }))
    .filter((c) => c.used + c.adding > c.limit);
}

/**
 * During a run: whether one more upload estimated at `next` characters still fits, given what the run
 * has committed so far (characters billed by finished documents plus the estimates of those still in
 * flight). Returns the cap it would exceed, or undefined when it fits.
 */
export function capBeforeUpload(
  committed: number,
  next: number,
  caps: BudgetCaps,
  billedThisMonth: number,
): CapExceeded | undefined {
  return checkBudget(committed + next, caps, billedThisMonth)[0];
}

type Format = (chars: number) => string;

function capName(c: CapExceeded, format: Format): string {
  return c.cap === 'max-billed'
    ? `--max-billed ${c.limit}`
    : c.cap === 'per_run'
      ? `budget.per_run (${format(c.limit)})`
      : `budget.per_month (${format(c.limit)})`;
}

function capFix(c: CapExceeded): string {
  return c.cap === 'per_month'
    ? 'raise budget.per_month in the manifest, or wait for next month'
    : c.cap === 'per_run'
      ? 'run with --max-billed N (N >= the total) for this run, or raise budget.per_run'
      : 'run with a larger --max-billed';
}

/** One line per exceeded cap, and how to proceed, for the run's refusal. */
export function describeExceeded(exceeded: CapExceeded[], format: Format): string[] {
  return exceeded.map((c) => {
    const what =
      c.cap === 'per_month'
        ? `budget.per_month (${format(c.limit)}; ${format(c.used)} billed this month)`
        : capName(c, format);
    return `this run would bill ${format(c.adding)} characters, over ${what}: ${capFix(c)}`;
  });
}

/**
 * Why a run stopped sending: the cap the next billed call (`call`: "upload", or the segment path's
 * "document's text requests"; estimated at `next` characters) would have exceeded, what was already
 * billed or in flight against it, and how to proceed.
 */
export function describeReached(c: CapExceeded, next: number, format: Format, call = 'upload'): string {
  const before = c.used + c.adding - next;
  const what = c.cap === 'per_month' ? 'this month has' : 'this run has';
  return `${what} ${format(before)} characters billed or in flight; the next ${call} (about ${format(next)}) would go over ${capName(c, format)}: ${capFix(c)}`;
}
