import { listBackups } from './backup.js';

// A damaged state file (not a database, malformed pages, a failed integrity check) is told to the
// user as such: which file, and the commands that recover from it, never a bare SQLite message.

/** SQLite result codes that mean the file itself is damaged (not busy, locked or missing). */
const DAMAGE_CODES = /^SQLITE_(NOTADB|CORRUPT)/;

/** Whether `err` is SQLite saying the database file is damaged. */
export function isStateDamage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/** The recovery commands for a damaged state file (newest backup first when there is one). */
export function recoverySteps(statePath: string): string[] {
  const backups = listBackups(statePath);
  return [
    'locsync state check    (what SQLite finds wrong)',
    backups[0]
      ? `restore the newest backup: mv ${statePath} ${statePath}.damaged && cp ${backups[0].path} ${statePath}`
      : `no backup of it was found beside it (${statePath}.backup-*)`,
    `or start over without paying again: mv ${statePath} ${statePath}.damaged && locsync state adopt` +
      ' (records the outputs already on disk as done; nothing is uploaded)',
  ];
}

const opened: string[] = [];
/** Remembers a state file this process opened, to name it when SQLite reports damage mid-run. */
export function noteStateOpened(statePath: string): void {
  if (!opened.includes(statePath)) opened.push(statePath);
}
/** The state file most recently opened by this process, if any. */
export function lastOpenedState(): string | undefined {
  return opened[opened.length - 1];
}

/** Thrown instead of SQLite's own error when the state file is damaged. */
export class StateDamagedError extends Error {
  readonly statePath: string;
  constructor(statePath: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `the state file ${statePath} is damaged (${why}); nothing was changed. To recover:\n` +
        recoverySteps(statePath)
          .map((s) => `  - ${s}`)
          .join('\n') +
        '\n  (with -c <manifest> as you run sync)',
      { cause },
    );
    this.name = 'StateDamagedError';
    this.statePath = statePath;
  }
}
