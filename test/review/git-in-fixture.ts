import { execFileSync } from 'node:child_process';
import type { Fixture } from '../sync/fixture.js';

// git in a fixture's folder, as a reviewer's project keeps its outputs: the review tests commit a
// first translation and compare with it.

/** Runs git with `args` in the fixture's folder, with an author set. */
export const git = (f: Fixture, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=r@example.com', '-c', 'user.name=r', ...args], { cwd: f.dir });

/** A git repository of the fixture's folder (the state folder ignored) with everything committed. */
export function commitAll(f: Fixture, message: string): void {
  git(f, 'init', '-q');
  f.write('.gitignore', '.locsync/\n');
  git(f, 'add', '-A');
  git(f, 'commit', '-qm', message);
}
