import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { openState, type StateStore } from './store.js';

// One locsync process drives a state.db at a time. The lock is a file beside the state
// (`state.db.lock`) created with O_EXCL, holding the owner's pid, host and start time. A lock left
// by a dead process on this host is taken over (with a log line); a live one is an error naming it.
// A pid alone does not name a process: after a reboot (or a wrap of the pid counter) the same number
// can belong to an unrelated live process. So the lock also records the boot it was taken in and the
// owner's start time as the kernel counts it, and a lock older than the current boot, or whose pid now
// belongs to a process started at another time, is stale too.

export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  command?: string;
  /** The kernel's boot id when the lock was taken (Linux). */
  boot_id?: string;
  /** The owner's start time in clock ticks since boot (Linux /proc/<pid>/stat field 22). */
  pid_start?: number;
}

export interface StateLock {
  readonly path: string;
  release(): void;
}

/** Another process holds the state lock (exit code 1: try again later; documented in docs/sync.md). */
export class LockedError extends Error {
  constructor(
    message: string,
    readonly owner: LockOwner | undefined,
    readonly lockPath: string,
  ) {
    super(message);
    this.name = 'LockedError';
  }
}

export function lockPathFor(statePath: string): string {
  return path.resolve(statePath) + '.lock';
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') return parsed as LockOwner;
  } catch {
    /* unreadable or half-written */
  }
  return undefined;
}

/** Whether a process with this pid runs on this host. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This boot's id (Linux), undefined where the kernel does not say. */
function currentBootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** When process `pid` started, in clock ticks since boot (Linux), undefined where unknown. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the owner of a lock taken on this host is gone: its pid is dead, the lock was taken before
 * this boot (a different boot id, or a start time before the machine came up), or the pid now belongs
 * to a process that started at another time than the owner.
 */
function ownerGone(owner: LockOwner): boolean {
  if (!pidAlive(owner.pid)) return true;
  const bootId = currentBootId();
  if (owner.boot_id !== undefined && bootId !== undefined && owner.boot_id !== bootId) return true;
  const bootedAt = Date.now() - os.uptime() * 1000;
  // os.uptime() has whole seconds: a margin keeps a lock taken right after boot from looking older.
  if (Date.parse(owner.started_at) < bootedAt - 5_000) return true;
  if (owner.pid_start !== undefined) {
    const start = processStartTicks(owner.pid);
    if (start !== undefined && start !== owner.pid_start) return true;
  }
  return false;
}

/**
 * Take the lock of the state at `statePath`, or throw LockedError naming the pid and host that hold
 * it. Stale locks (owner gone from this host, see ownerGone, or an unreadable lock file older than a
 * minute) are taken over.
 */
export function acquireLock(statePath: string, opts: { logger?: Logger; command?: string } = {}): StateLock {
  const lockPath = lockPathFor(statePath);
  fs.mkdirSync(path.dirname(lockPath), { recursive: true, mode: 0o700 });
  const bootId = currentBootId();
  const pidStart = processStartTicks(process.pid);
  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    started_at: new Date().toISOString(),
    ...(opts.command ? { command: opts.command } : {}),
    ...(bootId !== undefined ? { boot_id: bootId } : {}),
    ...(pidStart !== undefined ? { pid_start: pidStart } : {}),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(lockPath, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(lockPath);
      const stale = owner
        ? owner.host === me.host && ownerGone(owner)
        : Date.now() - safeMtime(lockPath) > 60_000;
      if (!stale) {
        const who = owner
          ? `process ${owner.pid} on ${owner.host} (since ${owner.started_at})`
          : 'another process';
        throw new LockedError(
          `state ${path.resolve(statePath)} is in use by ${who}; wait for it to finish` +
            (owner && owner.host !== me.host ? '' : ` or stop it (kill ${owner?.pid ?? '<pid>'})`) +
            `. Lock file: ${lockPath}`,
          owner,
          lockPath,
        );
      }
      opts.logger?.warn(
        { lock: lockPath, stale_pid: owner?.pid, stale_host: owner?.host },
        'taking over a stale state lock left by a process that is no longer running (its pid is free or now belongs to another process)',
      );
      try {
        fs.unlinkSync(lockPath);
      } catch {
        /* someone else took it over first: retry */
      }
      continue;
    }
    fs.writeSync(fd, JSON.stringify(me));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      const owner = readOwner(lockPath);
      if (owner && owner.pid === me.pid && owner.host === me.host) {
        try {
          fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      }
    };
    process.on('exit', release);
    return { path: lockPath, release };
  }
  throw new LockedError(`could not take the state lock ${lockPath}`, readOwner(lockPath), lockPath);
}

function safeMtime(p: string): number {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Open a state and take its lock, for a command that drives it (sync, watch). When the lock is held
 * elsewhere the state is closed again and the LockedError thrown.
 */
export function openLockedState(
  statePath: string,
  opts: { logger?: Logger; command: string },
): { state: StateStore; lock: StateLock } {
  const state = openState(statePath);
  try {
    return { state, lock: acquireLock(statePath, opts) };
  } catch (err) {
    state.close();
    throw err;
  }
}
