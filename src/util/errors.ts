/**
 * Exit codes of the CLI, one meaning each, so that a script or a monitoring check can act on the
 * code alone. `EXIT_CODES` below is the documented table (`locsync --help`, README, docs): a test
 * compares them.
 */
export const EXIT = {
  ok: 0,
  /** Some documents failed (listed; the next run retries what can be retried), or an internal error. */
  failed: 1,
  /** A mistake in what the user gave: flags, the manifest, the environment, a refused API key. */
  usage: 2,
  /** `plan --detailed-exitcode` only: the plan is not empty. */
  changes: 3,
  /** Another locsync process holds the state lock. */
  locked: 4,
  /** A budget cap (budget.per_run, budget.per_month, --max-billed) stopped the uploads. */
  budget: 5,
  /** Stopped by SIGINT or SIGTERM before the work was done (128 + SIGINT, as shells report Ctrl-C). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Every exit code with what it means and what to do: the table of `--help`, README and docs. */
export const EXIT_CODES: ReadonlyArray<{ code: ExitCode; meaning: string }> = [
  { code: EXIT.ok, meaning: 'done: every document up to date (status: nothing needs attention)' },
  {
    code: EXIT.failed,
    meaning: 'some documents failed (listed; the next run retries what can be retried), or an internal error',
  },
  {
    code: EXIT.usage,
    meaning:
      'usage or configuration error: a bad flag, the manifest (file:line:column), a missing or refused API key, a state on a network filesystem',
  },
  { code: EXIT.changes, meaning: 'plan --detailed-exitcode: changes pending (only with that flag)' },
  { code: EXIT.locked, meaning: 'the state is locked by another locsync process (named); try again later' },
  {
    code: EXIT.budget,
    meaning: 'a budget cap (budget.per_run, budget.per_month, --max-billed) stopped the uploads',
  },
  {
    code: EXIT.interrupted,
    meaning: 'interrupted (Ctrl-C, SIGTERM): run the command again to resume; nothing is paid twice',
  },
];

/**
 * A mistake in what the user gave us (manifest, flags, environment): exit 2, message shown as is.
 * `file`, `line` and `column` (1-based) locate it when known.
 */
export class ConfigError extends Error {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(message: string, where: { file?: string; line?: number; column?: number } = {}) {
    super(message);
    this.name = 'ConfigError';
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
  }
  /** "file:line:col: message" as editors and terminals expect. */
  format(): string {
    const loc = [this.file, this.line, this.column].filter((x) => x !== undefined).join(':');
    return loc ? `${loc}: ${this.message}` : this.message;
  }
}
