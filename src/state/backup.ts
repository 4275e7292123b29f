import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';

// Consistent online copies of the state (SQLite's backup API: safe while a sync writes), kept beside
// it as <state>.backup-<UTC time> (automatic, the newest few kept) or <state>.backup-<UTC time>-manual
// (`locsync state backup`, never removed by locsync). They hold document keys like the state: mode 0600.

const SUFFIX = '.backup-';
const STAMP = /^(\d{8}T\d{6}Z)(-manual)?$/;

export interface StateBackup {
  path: string;
  /** When it was taken (from its name). */
  takenAt: Date;
  /** Taken by `locsync state backup` (kept until you remove it), not by a sync. */
  manual: boolean;
}

/** `<state>.backup-20261123T201807Z` (or `...Z-manual`) for a backup taken at `at`. */
export function backupPathFor(statePath: string, at: Date, manual = false): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${statePath}${SUFFIX}${stamp}${manual ? '-manual' : ''}`;
}

/** The automatic and `state backup` copies beside `statePath`, newest first. */
export function listBackups(statePath: string): StateBackup[] {
  const dir = path.dirname(statePath);
  const prefix = path.basename(statePath) + SUFFIX;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const found: StateBackup[] = [];
  for (const n of names) {
    const m = n.startsWith(prefix) ? STAMP.exec(n.slice(prefix.length)) : null;
    if (!m) continue;
    const s = m[1] as string;
    const iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`;
    found.push({ path: path.join(dir, n), takenAt: new Date(iso), manual: m[2] !== undefined });
  }
  return found.sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/**
 * Writes a consistent copy of the open database `db` to `dest` (mode 0600). The copy is made under a
 * temporary name and renamed, so that `dest` is never a half-written database.
 */
export async function backupState(db: Database.Database, dest: string): Promise<void> {
  const tmp = `${dest}.partial`;
  fs.rmSync(tmp, { force: true });
  fs.closeSync(fs.openSync(tmp, 'w', 0o600));
  try {
    await db.backup(tmp);
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, dest);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * The automatic backup a sync takes before it uploads: a new copy when the newest one is older than
 * `intervalHours` (or there is none), then only the newest `keep` are kept. `keep: 0` turns it off. Manual backups are neither counted nor removed.
 * Returns the path written, if any.
 */
export async function autoBackup(
  db: Database.Database,
  statePath: string,
  opts: { keep: number; interval_hours: number },
  now = new Date(),
): Promise<string | undefined> {
  if (opts.keep <= 0) return undefined;
  const automatic = () => listBackups(statePath).filter((b) => !b.manual);
  const newest = automatic()[0];
  let written: string | undefined;
  if (!newest || now.getTime() - newest.takenAt.getTime() >= opts.interval_hours * 3_600_000) {
    written = backupPathFor(statePath, now);
    await backupState(db, written);
  }
  for (const old of automatic().slice(opts.keep)) fs.rmSync(old.path, { force: true });
  return written;
}
