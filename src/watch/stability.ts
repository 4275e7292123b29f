import fs from 'node:fs';
import path from 'node:path';

// Is a file complete? It must keep its size and mtime for the stability window (by our looks and by
// its mtime), and no editor may hold it open.

/** What one look at a file saw. */
export interface Observation {
  size: number;
  mtimeMs: number;
  /** When we saw size or mtime change (0: never, only the file's mtime tells). */
  changedAt: number;
}

export type Readiness =
  | { ready: true; size: number; mtimeMs: number }
  | { ready: false; why: 'gone' }
  | { ready: false; why: 'changing'; seen: Observation }
  | { ready: false; why: 'open'; lockFile: string; seen: Observation };

/**
 * Lock files editors keep beside an open document: Word/Excel/PowerPoint write `~$` + the name
 * (with its first one or two characters dropped for longer names), LibreOffice `.~lock.<name>#`.
 */
export function officeLockNames(file: string): string[] {
  const name = path.basename(file);
  const names = new Set([`~$${name}`, `.~lock.${name}#`]);
  if (name.length > 1) names.add(`~$${name.slice(1)}`);
  if (name.length > 2) names.add(`~$${name.slice(2)}`);
  return [...names];
}

/** The lock file that says the document is open in an editor, if any. */
export function findOfficeLock(file: string): string | undefined {
  const dir = path.dirname(file);
  return officeLockNames(file)
    .map((n) => path.join(dir, n))
    .find((p) => fs.existsSync(p));
}

/** True for an editor's lock file itself (never a document). */
export function isOfficeLockFile(file: string): boolean {
  const name = path.basename(file);
  return name.startsWith('~$') || (name.startsWith('.~lock.') && name.endsWith('#'));
}

/**
 * Look at a file again. It is ready when its size and mtime are those of the previous look, neither
 * changed during the last `windowMs` (by our looks and by its mtime), and no editor lock is beside it.
 * The first look is never ready: two looks, at least one tick apart, must agree.
 */
export function checkStable(
  file: string,
  previous: Observation | undefined,
  windowMs: number,
  now = Date.now(),
): Readiness {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return { ready: false, why: 'gone' };
  }
  if (!st.isFile()) return { ready: false, why: 'gone' };
  const same = previous !== undefined && previous.size === st.size && previous.mtimeMs === st.mtimeMs;
  const seen: Observation = same
    ? previous
    : { size: st.size, mtimeMs: st.mtimeMs, changedAt: previous ? now : 0 };
  const quietSince = Math.max(seen.changedAt, Math.min(st.mtimeMs, now));
  if (!same || now - quietSince < windowMs) return { ready: false, why: 'changing', seen };
  const lockFile = findOfficeLock(file);
  if (lockFile) return { ready: false, why: 'open', lockFile, seen };
  return { ready: true, size: st.size, mtimeMs: st.mtimeMs };
}
