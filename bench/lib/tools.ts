import { spawnSync } from 'node:child_process';

// External programs a benchmark compares with (peers), detected rather than assumed.

/** True when `command` runs (found on PATH and answers `--version`). */
export function commandExists(command: string): boolean {
  const r = spawnSync(command, ['--version'], { stdio: 'ignore' });
  return !r.error && r.status === 0;
}

/** The first line of `command --version`, or undefined when it is not installed. */
export function commandVersion(command: string): string | undefined {
  const r = spawnSync(command, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout.split('\n')[0]?.trim();
}

/** What the table shows instead of a ratio when rsync (a Debian package, not on a fresh machine) is missing. */
export const RSYNC_MISSING = 'rsync not installed — `apt-get install rsync`';
