import fs from 'node:fs';
import path from 'node:path';
import { git, gitText } from '../util/git.js';

// The checkout a delivery is committed in, and the states of it in which locsync commits nothing:
// not a checkout, a detached HEAD, a merge (rebase, cherry-pick, revert) under way, a locked index.
// Each refusal says why and what to do; the run's files are delivered all the same.

/** Why nothing was committed (or pushed): a sentence with the way out, for the user. */
export class NotCommitted extends Error {}

export interface Checkout {
  /** The work tree's top folder (real path). */
  top: string;
  /** This work tree's git folder (a linked worktree has its own). */
  gitDir: string;
  /** The branch HEAD is on, without refs/heads/. */
  branch: string;
  /** The commit HEAD names; undefined on a branch without commits yet. */
  head: string | undefined;
}

/** What git leaves in the git folder while an operation waits for the user to finish it. */
const UNDER_WAY: Array<[string, string]> = [
  ['MERGE_HEAD', 'a merge is in progress: finish it (git commit) or abort it (git merge --abort)'],
  [
    'rebase-merge',
    'a rebase is in progress: finish it (git rebase --continue) or abort it (git rebase --abort)',
  ],
  ['rebase-apply', 'a rebase or git am is in progress: finish it (--continue) or abort it (--abort)'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick is in progress: finish it (git cherry-pick --continue) or abort it'],
  ['REVERT_HEAD', 'a revert is in progress: finish it (git revert --continue) or abort it'],
];

/** The checkout holding `dir`, ready for a commit; NotCommitted when locsync must not commit there. */
export async function openCheckout(dir: string): Promise<Checkout> {
  const where = await git(dir, ['rev-parse', '--show-toplevel', '--absolute-git-dir']);
  if (!where.ok)
    throw new NotCommitted(
      `${dir} is not in a git checkout (${where.err.split('\n')[0] || 'git rev-parse failed'}): ` +
        'run `git init` there (or clone the repository), or run without --commit',
    );
  const [top, gitDir] = gitText(where).split('\n') as [string, string];
  const ref = await git(top, ['symbolic-ref', '-q', 'HEAD']);
  if (!ref.ok) {
    const at = gitText(await git(top, ['rev-parse', '--short', 'HEAD']));
    throw new NotCommitted(
      `HEAD is detached${at ? ` (at ${at})` : ''}: locsync commits onto a branch. ` +
        '`git switch <branch>` (or `git switch -c <new-branch>`), then run again',
    );
  }
  for (const [name, what] of UNDER_WAY)
    if (fs.existsSync(path.join(gitDir, name))) throw new NotCommitted(`${what}, then run again`);
  const lock = path.join(gitDir, 'index.lock');
  if (fs.existsSync(lock))
    throw new NotCommitted(
      `the index is locked (${lock} exists): another git command is running in this checkout, ` +
        'or one was killed and left its lock. Once no git command runs there, remove it and run again',
    );
  const head = await git(top, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
  return {
    top,
    gitDir,
    branch: gitText(ref).replace(/^refs\/heads\//, ''),
    head: head.ok ? gitText(head) : undefined,
  };
}

/**
 * `outputs` (relative to `base`) as paths relative to the checkout's top; NotCommitted naming the
 * ones outside it (git cannot commit them).
 */
export function insideCheckout(co: Checkout, base: string, outputs: string[]): string[] {
  const real = fs.realpathSync(base);
  const rel = outputs.map((o) => [o, path.relative(co.top, path.resolve(real, o))] as const);
  const outside = rel.filter(([, r]) => r === '' || r.startsWith('..') || path.isAbsolute(r));
  if (outside.length)
    throw new NotCommitted(
      `${outside.length} output(s) lie outside the checkout ${co.top} (${outside
        .slice(0, 3)
        .map(([o]) => o)
        .join(', ')}${outside.length > 3 ? ', ...' : ''}): git commits only files inside it. ` +
        'Put the output folders inside the checkout, or run without --commit',
    );
  return rel.map(([, r]) => r.split(path.sep).join('/'));
}
