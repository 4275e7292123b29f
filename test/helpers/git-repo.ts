import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Real git for the delivery tests: a work tree and a bare repository on disk as its remote.

const ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** Run git in `cwd`; its stdout without the final newline. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trimEnd();
}

/** `git` as a user of this machine would set it up: name and email in the repository's config. */
export function setUser(dir: string, name = 'Dana Developer', email = 'dana@example.com'): void {
  git(dir, 'config', 'user.name', name);
  git(dir, 'config', 'user.email', email);
}

export interface Repo {
  /** The bare repository standing for the remote (origin). */
  remote: string;
  /** Remove the remote (the work tree is the caller's). */
  close(): void;
}

/**
 * Make `dir` a checkout on branch main with everything in it committed (a user's first commit),
 * pushed to a bare repository on disk that is its upstream.
 */
export function initRepo(dir: string): Repo {
  const remoteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-remote-'));
  const remote = path.join(remoteDir, 'origin.git');
  git(remoteDir, 'init', '-q', '--bare', '-b', 'main', remote);
  git(dir, 'init', '-q', '-b', 'main');
  setUser(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'the project');
  git(dir, 'remote', 'add', 'origin', remote);
  git(dir, 'push', '-q', '-u', 'origin', 'main');
  return { remote, close: () => fs.rmSync(remoteDir, { recursive: true, force: true }) };
}

/** A second clone of the remote (a reviewer's, another machine's), with its own user. */
export function cloneOf(remote: string, name: string): { dir: string; close(): void } {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'locsync-clone-'));
  const dir = path.join(parent, 'work');
  git(parent, 'clone', '-q', remote, dir);
  setUser(dir, name, `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`);
  return { dir, close: () => fs.rmSync(parent, { recursive: true, force: true }) };
}

/** The paths a commit changed, with their status letter ("M out/de/a.txt"), sorted. */
export function changedIn(dir: string, ref = 'HEAD'): string[] {
  return git(dir, 'diff-tree', '--no-commit-id', '--name-status', '-r', '--root', ref)
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace('\t', ' '))
    .sort();
}

/** `git status --porcelain` lines, sorted. */
export function statusOf(dir: string): string[] {
  return git(dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort();
}
